package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var copyTests = []test{
	{"CopiesEverything", testCopyCopiesEverything},
	{"ThreadsAreIndependent", testCopyThreadsAreIndependent},
	{"ToExistingThreadFails", testCopyToExistingThreadFails},
}

// copier returns s as a Copier, or skips the test.
func copier(t *testing.T, s checkpoint.Saver) checkpoint.Copier {
	c, ok := s.(checkpoint.Copier)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.Copier", s)
	}
	return c
}

// putHistory stores a small history on thread: three root checkpoints with
// a delta channel and pending writes, and a child namespace.
func putHistory(t *testing.T, s checkpoint.Saver, thread string) {
	t.Helper()
	ctx := context.Background()
	a := mustPut(t, s, thread, step{
		md:    checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1, Extra: map[string]any{"user": "ann"}},
		blobs: map[string]checkpoint.Blob{"name": full("n1", `"x"`), "items": full(thread+"-i1", `[1]`)},
	})
	b := mustPut(t, s, thread, step{
		parent:   a,
		versions: map[string]string{"name": "n1", "items": thread + "-i2"},
		blobs:    map[string]checkpoint.Blob{"items": delta(thread+"-i2", thread+"-i1", `[2]`)},
	})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: b}, "t", []checkpoint.PendingWrite{
		pw("t", 0, "items", `[3]`), pw("t", -1, checkpoint.ErrorChannel, `"e"`),
	}))
	mustPut(t, s, thread, step{ns: "child:1", blobs: map[string]checkpoint.Blob{"c": full("c1", `"child"`)}})
}

// requireSameHistory asserts that dst holds src's checkpoints, namespace
// by namespace, with the same ids, values, metadata and writes.
func requireSameHistory(t *testing.T, s checkpoint.Saver, src, dst string, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		want := collect(t, s, checkpoint.Config{ThreadID: src, Namespace: ns}, checkpoint.ListOptions{})
		got := collect(t, s, checkpoint.Config{ThreadID: dst, Namespace: ns}, checkpoint.ListOptions{})
		require.NotEmpty(t, want, "ns %q", ns)
		require.Len(t, got, len(want), "ns %q", ns)
		for i := range want {
			w := *want[i]
			w.Config.ThreadID = dst
			if w.Parent != nil {
				p := *w.Parent
				p.ThreadID = dst
				w.Parent = &p
			}
			requireSameTuple(t, &w, got[i], "ns %q checkpoint %d", ns, i)
		}
	}
}

func testCopyCopiesEverything(t *testing.T, s checkpoint.Saver) {
	c := copier(t, s)
	src, dst := newThreadID(), newThreadID()
	putHistory(t, s, src)
	require.NoError(t, c.CopyThread(context.Background(), src, dst))
	requireSameHistory(t, s, src, dst, "", "child:1")
}

func testCopyThreadsAreIndependent(t *testing.T, s checkpoint.Saver) {
	c := copier(t, s)
	ctx := context.Background()
	src, dst := newThreadID(), newThreadID()
	putHistory(t, s, src)
	srcHead := mustGet(t, s, checkpoint.Config{ThreadID: src})
	require.NoError(t, c.CopyThread(ctx, src, dst))

	// Advancing the copy leaves the source alone…
	head := srcHead.Checkpoint.ID
	next := mustPut(t, s, dst, step{parent: head, versions: map[string]string{"name": "n2", "items": dst + "-i3"}, blobs: map[string]checkpoint.Blob{
		"name":  full("n2", `"y"`),
		"items": delta(dst+"-i3", src+"-i2", `[4]`),
	}})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: dst, CheckpointID: head}, "t", []checkpoint.PendingWrite{pw("t", 1, "x", "1")}))
	requireSameTuple(t, srcHead, mustGet(t, s, checkpoint.Config{ThreadID: src}), "source head after the copy advanced")
	got := mustGet(t, s, checkpoint.Config{ThreadID: dst})
	require.Equal(t, next, got.Checkpoint.ID)
	requireValues(t, map[string]val{"name": {"n2", `"y"`, nil}, "items": {dst + "-i3", `[1]`, []string{`[2]`, `[4]`}}}, got.Checkpoint.Values)

	// …and the source's head still takes puts: the heads are separate.
	mustPut(t, s, src, step{parent: head, versions: map[string]string{"name": "n1", "items": src + "-i1"}})

	// Deleting the source leaves the copy whole.
	require.NoError(t, s.DeleteThread(ctx, src))
	requireValues(t, map[string]val{"name": {"n2", `"y"`, nil}, "items": {dst + "-i3", `[1]`, []string{`[2]`, `[4]`}}},
		mustGet(t, s, checkpoint.Config{ThreadID: dst}).Checkpoint.Values)
	requireWrites(t, []write{
		{"t", -1, checkpoint.ErrorChannel, `"e"`},
		{"t", 0, "items", `[3]`},
		{"t", 1, "x", "1"},
	}, mustGet(t, s, checkpoint.Config{ThreadID: dst, CheckpointID: head}).PendingWrites)
	require.Len(t, listIDs(t, s, checkpoint.Config{ThreadID: dst, Namespace: "child:1"}, checkpoint.ListOptions{}), 1)
}

// testCopyToExistingThreadFails: onto a thread with checkpoints (in any
// namespace), or onto itself, is ErrConflict and changes nothing.
func testCopyToExistingThreadFails(t *testing.T, s checkpoint.Saver) {
	c := copier(t, s)
	ctx := context.Background()
	src, dst := newThreadID(), newThreadID()
	putHistory(t, s, src)
	dstIDs := putChain(t, s, dst, "", 2, nil)
	requireConflict(t, c.CopyThread(ctx, src, dst), dst, "copying onto thread %q, which has checkpoints", dst)
	require.Equal(t, reversed(dstIDs), listIDs(t, s, checkpoint.Config{ThreadID: dst}, checkpoint.ListOptions{}), "the destination is unchanged")
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: dst, Namespace: "child:1"}, checkpoint.ListOptions{}))

	childOnly := newThreadID()
	putChain(t, s, childOnly, "child:9", 1, nil)
	requireConflict(t, c.CopyThread(ctx, src, childOnly), childOnly, "onto a thread with checkpoints in a child namespace only")
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: childOnly}, checkpoint.ListOptions{}))

	before := listIDs(t, s, checkpoint.Config{ThreadID: src}, checkpoint.ListOptions{})
	requireConflict(t, c.CopyThread(ctx, src, src), src, "onto itself")
	require.Equal(t, before, listIDs(t, s, checkpoint.Config{ThreadID: src}, checkpoint.ListOptions{}))
}
