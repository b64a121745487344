package checkpointtest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var deleteTests = []test{
	{name: "RemovesEveryNamespace", fn: testDeleteRemovesEveryNamespace},
	{name: "UnknownThreadIsNotAnError", fn: testDeleteUnknownThreadIsNotAnError},
	{name: "LeavesOtherThreadsIntact", fn: testDeleteLeavesOtherThreadsIntact},
}

func testDeleteRemovesEveryNamespace(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread, other := newThreadID(), newThreadID()
	root := putChain(t, s, thread, "", 3, nil)
	child := putChain(t, s, thread, "child:1", 2, nil)
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: root[2]}, "t", []checkpoint.PendingWrite{pw("t", 0, "x", "1")}))
	kept := putChain(t, s, other, "", 2, nil)
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: other, CheckpointID: kept[1]}, "t", []checkpoint.PendingWrite{pw("t", 0, "x", "2")}))

	require.NoError(t, s.DeleteThread(ctx, thread))

	for _, ns := range []string{"", "child:1"} {
		_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns})
		requireNotFound(t, err, thread, "ns %q after delete", ns)
		require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}))
	}
	for _, id := range append(root, child...) {
		_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: id})
		require.ErrorIs(t, err, checkpoint.ErrNotFound)
	}
	err := s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: root[2]}, "t", []checkpoint.PendingWrite{pw("t", 1, "x", "1")})
	requireNotFound(t, err, thread, "writes to a deleted checkpoint")

	// The other thread is untouched.
	require.Equal(t, reversed(kept), listIDs(t, s, checkpoint.Config{ThreadID: other}, checkpoint.ListOptions{}))
	tup := mustGet(t, s, checkpoint.Config{ThreadID: other})
	requireValues(t, map[string]val{"n": {"n1", "1", nil}}, tup.Checkpoint.Values)
	requireWrites(t, []write{{"t", 0, "x", "2"}}, tup.PendingWrites)

	// The thread starts afresh: its head is empty again.
	fresh := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"n": full("again", `"again"`)}})
	tup = mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, fresh, tup.Checkpoint.ID)
	require.Empty(t, tup.PendingWrites)
	requireValues(t, map[string]val{"n": {"again", `"again"`, nil}}, tup.Checkpoint.Values)
	require.Equal(t, []string{fresh}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
}

func testDeleteUnknownThreadIsNotAnError(t *testing.T, s checkpoint.Saver) {
	require.NoError(t, s.DeleteThread(context.Background(), newThreadID()))
	thread := newThreadID()
	putChain(t, s, thread, "", 1, nil)
	require.NoError(t, s.DeleteThread(context.Background(), thread))
	require.NoError(t, s.DeleteThread(context.Background(), thread), "deleting twice")
}

// DeleteThread

// testDeleteLeavesOtherThreadsIntact: threads whose ids differ from the deleted
// one by a wildcard, a prefix or case, and a copy with the very same
// checkpoint ids and blob versions, keep everything. Mirrors LangGraph
// conformance test_delete_thread (other threads untouched).
func testDeleteLeavesOtherThreadsIntact(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	victim := newThreadID()
	others := []string{victim + "%", victim + "x", victim[:len(victim)-1], strings.ToUpper(victim), "_" + victim[1:]}
	putCopySource(t, s, victim)
	for _, o := range others {
		putCopySource(t, s, o)
	}
	snapshot := func(thread string) map[string][]*checkpoint.Tuple {
		out := map[string][]*checkpoint.Tuple{}
		for _, ns := range []string{"", "child:1", "child:1|grand:2"} {
			out[ns] = collect(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{})
		}
		return out
	}
	if c, ok := s.(checkpoint.Copier); ok {
		cp := victim + "-copy"
		require.NoError(t, c.CopyThread(ctx, victim, cp))
		others = append(others, cp)
	}
	want := map[string]map[string][]*checkpoint.Tuple{}
	for _, o := range others {
		want[o] = snapshot(o)
	}

	require.NoError(t, s.DeleteThread(ctx, victim))

	for ns, tups := range snapshot(victim) {
		require.Empty(t, tups, "ns %q of the deleted thread", ns)
	}
	for _, o := range others {
		got := snapshot(o)
		for ns, w := range want[o] {
			require.Len(t, got[ns], len(w), "thread %q ns %q", o, ns)
			for i := range w {
				requireSameTuple(t, w[i], got[ns][i], "thread %q ns %q checkpoint %d", o, ns, i)
			}
		}
	}
}
