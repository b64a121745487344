package checkpointtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var casTests = []test{
	{name: "RejectsStaleHead", fn: testCASRejectsStaleHead},
	{name: "ConcurrentPutsOneWins", fn: testCASConcurrentPutsOneWins},
	{name: "ForkFromOldCheckpointSucceeds", fn: testCASForkFromOldCheckpointSucceeds},
	{name: "NonMonotonicIDIsRefusedOrListed", fn: testCASNonMonotonicID},
	{name: "DuplicateIDKeepsTheOriginal", fn: testCASDuplicateID},
}

func testCASRejectsStaleHead(t *testing.T, s checkpoint.Saver) {
	unknown := checkpoint.NewID()
	cases := []struct {
		name   string
		before int // checkpoints already in the namespace
		head   func(ids []string) string
	}{
		{"older checkpoint as head", 2, func(ids []string) string { return ids[0] }},
		{"unknown id as head", 2, func([]string) string { return unknown }},
		{"empty head on a non-empty namespace", 2, func([]string) string { return "" }},
		{"head on an empty namespace", 0, func([]string) string { return unknown }},
	}
	for _, c := range cases {
		thread := newThreadID()
		ids := putChain(t, s, thread, "", c.before, nil)
		head := c.head(ids)
		parent := ""
		if len(ids) > 0 {
			parent = ids[len(ids)-1]
		}
		req := step{parent: parent, head: &head, blobs: map[string]checkpoint.Blob{"n": full("rejected-"+c.name, `"rejected"`)}}.request(thread)
		_, err := s.Put(context.Background(), req)
		requireConflict(t, err, thread, c.name)

		// Nothing was stored.
		_, err = s.Get(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: req.Checkpoint.ID})
		requireNotFound(t, err, thread, "%s: the rejected checkpoint must not be stored", c.name)
		require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}), c.name)
		if len(ids) > 0 {
			latest := mustGet(t, s, checkpoint.Config{ThreadID: thread})
			require.Equal(t, parent, latest.Checkpoint.ID, c.name)
			requireValues(t, map[string]val{"n": {"n" + itoa(len(ids)-1), itoa(len(ids) - 1), nil}}, latest.Checkpoint.Values, c.name)
		}
	}
}

func testCASConcurrentPutsOneWins(t *testing.T, s checkpoint.Saver) {
	const writers = 8
	for _, ns := range []string{"", "child:1"} {
		thread := newThreadID()
		head := putChain(t, s, thread, ns, 1, nil)[0]

		reqs := make([]checkpoint.PutRequest, writers)
		for i := range reqs {
			reqs[i] = step{ns: ns, parent: head, blobs: map[string]checkpoint.Blob{"n": full("w"+itoa(i), itoa(i))}}.request(thread)
		}
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range reqs {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Put(context.Background(), reqs[i])
			})
		}
		close(start)
		wg.Wait()

		winner := -1
		for i, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "ns %q: writers %d and %d both succeeded", ns, winner, i)
				winner = i
				continue
			}
			require.True(t, errors.Is(err, checkpoint.ErrConflict), "ns %q: writer %d: want ErrConflict, got %v", ns, i, err)
		}
		require.NotEqual(t, -1, winner, "ns %q: no writer succeeded", ns)

		cfg := checkpoint.Config{ThreadID: thread, Namespace: ns}
		require.Equal(t, []string{reqs[winner].Checkpoint.ID, head}, listIDs(t, s, cfg, checkpoint.ListOptions{}), "ns %q", ns)
		requireValues(t, map[string]val{"n": {"w" + itoa(winner), itoa(winner), nil}}, mustGet(t, s, cfg).Checkpoint.Values, "ns %q", ns)
	}
}

func testCASForkFromOldCheckpointSucceeds(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	head := ids[2]
	fork := mustPut(t, s, thread, step{
		parent: ids[0],
		head:   &head,
		md:     checkpoint.Metadata{Source: checkpoint.SourceFork, Step: 1},
		blobs:  map[string]checkpoint.Blob{"n": full("fork", `"forked"`)},
	})

	latest := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, fork, latest.Checkpoint.ID, "the fork is the new head")
	require.NotNil(t, latest.Parent)
	require.Equal(t, ids[0], latest.Parent.CheckpointID)
	requireValues(t, map[string]val{"n": {"fork", `"forked"`, nil}}, latest.Checkpoint.Values)
	// The old history is untouched.
	for i, id := range ids {
		requireValues(t, map[string]val{"n": {"n" + itoa(i), itoa(i), nil}},
			mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).Checkpoint.Values, "checkpoint %d", i)
	}
	require.Equal(t, append([]string{fork}, reversed(ids)...), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))

	// The old head no longer works as ExpectHead.
	_, err := s.Put(context.Background(), step{parent: head, blobs: map[string]checkpoint.Blob{"n": full("late", "0")}}.request(thread))
	requireConflict(t, err, thread)
}

// testCASNonMonotonicID: a checkpoint whose id sorts before the head's (made
// by another clock) is either refused, storing nothing, or stored and
// listed in id order with the head unchanged. Ports LangGraph
// checkpoint-sqlite test_list_includes_non_monotonic_parent to our
// contract ("a saver may refuse one that does not [sort after the head]").
func testCASNonMonotonicID(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	a := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"n": full("a", "1")}})
	old := checkpoint.NewID()
	b := mustPut(t, s, thread, step{parent: a, blobs: map[string]checkpoint.Blob{"n": full("b", "2")}})
	req := step{id: old, parent: b, blobs: map[string]checkpoint.Blob{"n": full("old", "3")}}.request(thread)
	if _, err := s.Put(ctx, req); err != nil {
		t.Logf("refused: %v", err)
		_, gerr := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: old})
		requireNotFound(t, gerr, thread)
		require.Equal(t, []string{b, a}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
		mustPut(t, s, thread, step{parent: b, blobs: map[string]checkpoint.Blob{"n": full("c", "4")}})
		return
	}
	tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: old})
	require.Equal(t, map[string]flat{"n": flatVal("old", "3")}, flatValues(tup.Checkpoint.Values))
	require.Equal(t, b, tup.Parent.CheckpointID)
	require.Equal(t, []string{b, old, a}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	require.Equal(t, b, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID, "the head is the greatest id")
	require.Equal(t, []string{a}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Before: old}))
	mustPut(t, s, thread, step{parent: b, blobs: map[string]checkpoint.Blob{"n": full("c", "4")}})
}

// testCASDuplicateID: a Put reusing a stored checkpoint's id (the head's or an
// older one) fails and leaves that checkpoint as it was.
func testCASDuplicateID(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	for _, i := range []int{2, 0} {
		req := step{id: ids[i], parent: ids[2], blobs: map[string]checkpoint.Blob{"n": full(fmt.Sprint("dup", i), `"dup"`)}, md: checkpoint.Metadata{Step: 99}}.request(thread)
		_, err := s.Put(ctx, req)
		require.Error(t, err, "reusing the id of checkpoint %d", i)
		tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: ids[i]})
		require.Equal(t, map[string]flat{"n": flatVal(fmt.Sprint("n", i), fmt.Sprint(i))}, flatValues(tup.Checkpoint.Values), "checkpoint %d", i)
		require.Equal(t, i, tup.Metadata.Step)
	}
	require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	mustPut(t, s, thread, step{parent: ids[2], blobs: map[string]checkpoint.Blob{"n": full("next", "3")}})
}
