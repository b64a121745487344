package checkpointtest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var copyTests = []test{
	{name: "CopiesEverything", fn: testCopyCopiesEverything},
	{name: "ThreadsAreIndependent", fn: testCopyThreadsAreIndependent},
	{name: "ToExistingThreadFails", fn: testCopyToExistingThreadFails},
	{name: "NamespacesAndWrites", fn: testCopyNamespacesAndWrites},
	{name: "FromMissingIsNotFound", fn: testCopyFromMissingIsNotFound},
	{name: "ConcurrentToOneDestination", fn: testCopyConcurrentToOneDestination},
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

// CopyThread

// putCopySource stores a history over three namespaces with delta chains
// and pending writes, and returns its namespaces.
func putCopySource(t *testing.T, s checkpoint.Saver, thread string) []string {
	t.Helper()
	ctx := context.Background()
	a := mustPut(t, s, thread, step{md: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1, Extra: map[string]any{"user": "ann", "n": 1}},
		blobs: map[string]checkpoint.Blob{"items": full("i1", `[1]`), "name": full("n1", `"x"`)}})
	b := mustPut(t, s, thread, step{parent: a, versions: map[string]string{"items": "i2", "name": "n1"}, blobs: map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)}})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: a}, "ta", []checkpoint.PendingWrite{pending(0, "items", `[2]`)}))
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: b}, "tb", []checkpoint.PendingWrite{
		pending(0, "items", `[3]`), pending(-1, checkpoint.ErrorChannel, `"boom"`), pending(-3, checkpoint.InterruptChannel, `[{"v":1}]`),
	}))
	k0 := mustPut(t, s, thread, step{ns: "child:1", md: checkpoint.Metadata{Parents: map[string]string{"": b}}, blobs: map[string]checkpoint.Blob{"items": full("i1", `["c"]`)}})
	k1 := mustPut(t, s, thread, step{ns: "child:1", parent: k0, blobs: map[string]checkpoint.Blob{"items": delta("i2", "i1", `["d"]`)}})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, Namespace: "child:1", CheckpointID: k1}, "tk", []checkpoint.PendingWrite{pending(0, "items", `["e"]`)}))
	mustPut(t, s, thread, step{ns: "child:1|grand:2", blobs: map[string]checkpoint.Blob{"g": full("g1", `"grand"`)}})
	return []string{"", "child:1", "child:1|grand:2"}
}

// testCopyNamespacesAndWrites mirrors LangGraph conformance
// test_copy_thread_preserves_namespaces / _writes / _ordering /
// _source_unchanged, and checks the copy's heads are its own.
func testCopyNamespacesAndWrites(t *testing.T, s checkpoint.Saver) {
	c, ok := s.(checkpoint.Copier)
	if !ok {
		t.Skip("not a Copier")
	}
	ctx := context.Background()
	src, dst := newThreadID(), newThreadID()
	nss := putCopySource(t, s, src)
	before := map[string][]*checkpoint.Tuple{}
	for _, ns := range nss {
		before[ns] = collect(t, s, checkpoint.Config{ThreadID: src, Namespace: ns}, checkpoint.ListOptions{})
	}
	require.NoError(t, c.CopyThread(ctx, src, dst))
	requireSameHistory(t, s, src, dst, nss...)
	// Filters see the copied metadata.
	require.Len(t, listIDs(t, s, checkpoint.Config{ThreadID: dst}, checkpoint.ListOptions{Filter: map[string]any{"user": "ann", "n": 1}}), 1)

	// The copy's heads are the source's heads, and its own.
	childHead := mustGet(t, s, checkpoint.Config{ThreadID: dst, Namespace: "child:1"}).Checkpoint.ID
	_, err := s.Put(ctx, step{ns: "child:1", blobs: map[string]checkpoint.Blob{"items": full("x", `[]`)}}.request(dst))
	require.ErrorIs(t, err, checkpoint.ErrConflict, "the copied namespace is not empty")
	mustPut(t, s, dst, step{ns: "child:1", parent: childHead, versions: map[string]string{"items": "i3"}, blobs: map[string]checkpoint.Blob{"items": delta("i3", "i2", `["z"]`)}})
	require.Equal(t, map[string]flat{"items": flatVal("i3", `["c"]`, `["d"]`, `["z"]`)}, flatValues(mustGet(t, s, checkpoint.Config{ThreadID: dst, Namespace: "child:1"}).Checkpoint.Values))
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: dst, Namespace: "child:1", CheckpointID: childHead}, "tk", []checkpoint.PendingWrite{pending(1, "items", `["w"]`)}))
	mustPut(t, s, src, step{ns: "child:1", parent: childHead, versions: map[string]string{"items": "i3"}, blobs: map[string]checkpoint.Blob{"items": delta("i3", "i2", `["s"]`)}})
	require.Equal(t, map[string]flat{"items": flatVal("i3", `["c"]`, `["d"]`, `["s"]`)}, flatValues(mustGet(t, s, checkpoint.Config{ThreadID: src, Namespace: "child:1"}).Checkpoint.Values))
	require.Len(t, mustGet(t, s, checkpoint.Config{ThreadID: src, Namespace: "child:1", CheckpointID: childHead}).PendingWrites, 1)

	// Pruning or deleting one leaves the other.
	if p, ok := s.(checkpoint.Pruner); ok {
		require.NoError(t, p.Prune(ctx, dst, 1))
		for _, ns := range []string{"", "child:1|grand:2"} {
			got := collect(t, s, checkpoint.Config{ThreadID: src, Namespace: ns}, checkpoint.ListOptions{})
			require.Len(t, got, len(before[ns]))
			for i := range got {
				requireSameTuple(t, before[ns][i], got[i], "ns %q checkpoint %d of the source", ns, i)
			}
		}
	}
	require.NoError(t, s.DeleteThread(ctx, src))
	tup := mustGet(t, s, checkpoint.Config{ThreadID: dst})
	require.Equal(t, map[string]flat{"items": flatVal("i2", `[1]`, `[2]`), "name": flatVal("n1", `"x"`)}, flatValues(tup.Checkpoint.Values))
	require.Len(t, tup.PendingWrites, 3)
}

// testCopyFromMissingIsNotFound: from a thread without checkpoints is
// ErrNotFound and creates nothing (LangGraph conformance
// test_copy_thread_nonexistent_source).
func testCopyFromMissingIsNotFound(t *testing.T, s checkpoint.Saver) {
	c, ok := s.(checkpoint.Copier)
	if !ok {
		t.Skip("not a Copier")
	}
	ctx := context.Background()
	missing, empty := newThreadID(), newThreadID()
	err := c.CopyThread(ctx, missing, empty)
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "from a thread without checkpoints")
	require.Contains(t, err.Error(), missing)
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: empty}, checkpoint.ListOptions{}))
	mustPut(t, s, empty, step{blobs: map[string]checkpoint.Blob{"a": full("a", "1")}}) // its head is still empty
}

// testCopyConcurrentToOneDestination: copies of different sources racing onto one
// destination: exactly one wins, the others get ErrConflict, and the
// destination holds the winner's history only.
func testCopyConcurrentToOneDestination(t *testing.T, s checkpoint.Saver) {
	c, ok := s.(checkpoint.Copier)
	if !ok {
		t.Skip("not a Copier")
	}
	const n = 6
	dst := newThreadID()
	srcs := make([]string, n)
	for i := range srcs {
		srcs[i] = newThreadID()
		putChain(t, s, srcs[i], "", i+1, nil)
		putChain(t, s, srcs[i], "child:1", 1, nil)
	}
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range srcs {
		wg.Go(func() {
			<-start
			errs[i] = c.CopyThread(context.Background(), srcs[i], dst)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, winner, "copies %d and %d both succeeded", winner, i)
			winner = i
			continue
		}
		require.ErrorIs(t, err, checkpoint.ErrConflict, "copy %d", i)
	}
	require.NotEqual(t, -1, winner)
	requireSameHistory(t, s, srcs[winner], dst, "", "child:1")
}
