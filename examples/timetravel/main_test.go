package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stretchr/testify/require"
)

func TestReplayAndFork(t *testing.T) {
	t.Parallel()
	p, err := NewPlanner()
	require.NoError(t, err)
	var out strings.Builder
	res, err := run(context.Background(), p, &out)
	require.NoError(t, err)

	require.Equal(t, "Casa do Rio, Porto, 120 a night", res.First.Booking)
	// The replay ran find_hotel and book again (and found a new price),
	// not choose_city.
	require.Equal(t, "Casa do Rio, Porto, 105 a night", res.Replayed.Booking)
	// The fork ran them with the edited city.
	require.Equal(t, "Alfama Rooms, Lisbon, 90 a night", res.Forked.Booking)
	require.Equal(t, 1, p.Calls("choose_city"))
	require.Equal(t, 3, p.Calls("find_hotel"))
	require.Equal(t, 3, p.Calls("book"))

	// Every branch stays in the history: 4 checkpoints of the first run,
	// a fork and 2 of the replay, an update and 2 of the fork.
	var sources []checkpoint.Source
	var prices []int
	for snap, err := range p.App.History(context.Background(), graph.WithThread("trip")) {
		require.NoError(t, err)
		sources = append(sources, snap.Metadata.Source)
		prices = append(prices, snap.Values.Price)
	}
	require.Equal(t, []checkpoint.Source{
		checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceUpdate,
		checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceFork,
		checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceInput,
	}, sources)
	require.Equal(t, []int{90, 90, 0, 105, 105, 0, 120, 120, 0, 0, 0}, prices)
	require.Contains(t, out.String(), "forked at")
	// Each branch says what it ran, apart from what it started from.
	require.Contains(t, out.String(), "replayed from the checkpoint after choose_city: Casa do Rio, Porto, 105 a night\n"+
		"  from the checkpoint: choose_city · ran on the replay: find_hotel → book (choose_city has run 1 time in all)\n")
	require.Contains(t, out.String(), "with city=Lisbon: Alfama Rooms, Lisbon, 90 a night\n"+
		"  from the checkpoint: choose_city · ran on the fork: find_hotel → book (choose_city has run 1 time in all)\n")
	require.NotContains(t, out.String(), "ran: choose_city")
}
