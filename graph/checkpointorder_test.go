package graph_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// TestRunAfterACheckpointFromAClockAheadContinuesTheThread pins that the
// head, not this process's clock, orders checkpoints: after another
// process whose clock is an hour ahead stored the thread's head, a run
// here stores its checkpoints after it, and a fresh process reads them.
func TestRunAfterACheckpointFromAClockAheadContinuesTheThread(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			build := func() *graph.Compiled[xyn] {
				g := graph.New(xynSchema)
				g.AddNode("a", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
					return state.Writes(xynX.Set([]string{"a"}), xynN.Set(s.N+1)), nil
				})
				g.AddEdge(graph.Start, "a").AddEdge("a", graph.End)
				c, err := g.Compile(graph.WithCheckpointer(saver))
				require.NoError(t, err)
				return c
			}
			ctx := context.Background()
			_, err := build().Invoke(ctx, state.Writes(xynN.Set(0)), graph.WithThread("t"))
			require.NoError(t, err)

			// The other process: an update checkpoint with its clock's id.
			latest, err := saver.Get(ctx, checkpoint.Config{ThreadID: "t"})
			require.NoError(t, err)
			// An hour after the head's own time, not this clock's: parallel
			// tests in this process may already have moved its ids ahead.
			headMS, err := strconv.ParseInt(strings.ReplaceAll(latest.Config.CheckpointID, "-", "")[:12], 16, 64)
			require.NoError(t, err)
			ms := fmt.Sprintf("%012x", max(headMS, time.Now().UnixMilli())+time.Hour.Milliseconds())
			future := ms[:8] + "-" + ms[8:] + "-7000-8000-000000000000"
			_, err = saver.Put(ctx, checkpoint.PutRequest{
				Config:     latest.Config,
				Checkpoint: checkpoint.Checkpoint{ID: future, CreatedAt: time.Now().UTC(), Versions: latest.Checkpoint.Versions},
				Metadata:   checkpoint.Metadata{Source: checkpoint.SourceUpdate, Step: latest.Metadata.Step + 1},
				ExpectHead: latest.Config.CheckpointID,
			})
			require.NoError(t, err)

			out, err := build().Invoke(ctx, state.Writes(xynN.Set(10)), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, xyn{X: []string{"a", "a"}, N: 11}, out)
			snap, err := build().State(ctx, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, out, snap.Values)
			require.Greater(t, snap.Config.CheckpointID, future)
		})
	}
}
