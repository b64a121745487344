package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var pruneTests = []test{
	{name: "KeepsNewestWithFullValues", fn: testPruneKeepsNewestWithFullValues},
	{name: "PerNamespaceAndThread", fn: testPruneIsPerNamespaceAndThread},
	{name: "KeepMoreThanStored", fn: testPruneKeepMoreThanStored},
	{name: "KeepZeroDeletesAll", fn: testPruneKeepZeroDeletesAll},
	{name: "NegativeKeepIsAnError", fn: testPruneNegativeKeepIsAnError},
	{name: "DeltaChainsAcrossForksAndNamespaces", fn: testPruneDeltaChainsAcrossForks},
}

// pruner returns s as a Pruner, or skips the test.
func pruner(t *testing.T, s checkpoint.Saver) checkpoint.Pruner {
	p, ok := s.(checkpoint.Pruner)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.Pruner", s)
	}
	return p
}

func testPruneKeepsNewestWithFullValues(t *testing.T, s checkpoint.Saver) {
	p := pruner(t, s)
	ctx := context.Background()
	thread := newThreadID()
	// "name" is written once by the first checkpoint; "items" is a delta
	// chain whose snapshot and first deltas belong to pruned checkpoints;
	// "last" changes every time.
	type cp struct {
		items checkpoint.Blob
		want  val
	}
	steps := []cp{
		{full("i0", `[0]`), val{"i0", `[0]`, nil}},
		{delta("i1", "i0", `[1]`), val{"i1", `[0]`, []string{`[1]`}}},
		{delta("i2", "i1", `[2]`), val{"i2", `[0]`, []string{`[1]`, `[2]`}}},
		{delta("i3", "i2", `[3]`), val{"i3", `[0]`, []string{`[1]`, `[2]`, `[3]`}}},
		{delta("i4", "i3", `[4]`), val{"i4", `[0]`, []string{`[1]`, `[2]`, `[3]`, `[4]`}}},
	}
	ids := make([]string, len(steps))
	parent := ""
	for i, st := range steps {
		blobs := map[string]checkpoint.Blob{"items": st.items, "last": full("l"+itoa(i), itoa(i))}
		if i == 0 {
			blobs["name"] = full("n0", `"kept"`)
		}
		parent = mustPut(t, s, thread, step{
			parent:   parent,
			versions: map[string]string{"name": "n0", "items": st.items.Version, "last": "l" + itoa(i)},
			blobs:    blobs,
		})
		ids[i] = parent
		require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: parent}, "t",
			[]checkpoint.PendingWrite{pw("t", 0, "last", itoa(i))}))
	}

	require.NoError(t, p.Prune(ctx, thread, 2))

	require.Equal(t, []string{ids[4], ids[3]}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	for i, id := range ids {
		cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
		if i < 3 {
			_, err := s.Get(ctx, cfg)
			requireNotFound(t, err, thread, "pruned checkpoint %d", i)
			continue
		}
		tup := mustGet(t, s, cfg)
		requireValues(t, map[string]val{
			"name":  {"n0", `"kept"`, nil},
			"items": steps[i].want,
			"last":  {"l" + itoa(i), itoa(i), nil},
		}, tup.Checkpoint.Values, "kept checkpoint %d", i)
		requireWrites(t, []write{{"t", 0, "last", itoa(i)}}, tup.PendingWrites, "kept checkpoint %d", i)
	}

	// The thread goes on from its head, and pruning again is fine.
	next := mustPut(t, s, thread, step{
		parent:   ids[4],
		versions: map[string]string{"name": "n0", "items": "i5", "last": "l4"},
		blobs:    map[string]checkpoint.Blob{"items": delta("i5", "i4", `[5]`)},
	})
	require.NoError(t, p.Prune(ctx, thread, 1))
	tup := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, next, tup.Checkpoint.ID)
	requireValues(t, map[string]val{
		"name":  {"n0", `"kept"`, nil},
		"items": {"i5", `[0]`, []string{`[1]`, `[2]`, `[3]`, `[4]`, `[5]`}},
		"last":  {"l4", "4", nil},
	}, tup.Checkpoint.Values)
	require.Equal(t, []string{next}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
}

func testPruneIsPerNamespaceAndThread(t *testing.T, s checkpoint.Saver) {
	p := pruner(t, s)
	thread, other := newThreadID(), newThreadID()
	root := putChain(t, s, thread, "", 4, nil)
	child := putChain(t, s, thread, "child:1", 3, nil)
	small := putChain(t, s, thread, "child:2", 1, nil)
	untouched := putChain(t, s, other, "", 4, nil)

	require.NoError(t, p.Prune(context.Background(), thread, 2))

	cases := []struct {
		thread, ns string
		want       []string
	}{
		{thread, "", []string{root[3], root[2]}},
		{thread, "child:1", []string{child[2], child[1]}},
		{thread, "child:2", small},
		{other, "", reversed(untouched)},
	}
	for _, c := range cases {
		cfg := checkpoint.Config{ThreadID: c.thread, Namespace: c.ns}
		require.Equal(t, c.want, listIDs(t, s, cfg, checkpoint.ListOptions{}), "thread %q ns %q", c.thread, c.ns)
		for _, id := range c.want {
			cfg.CheckpointID = id
			require.Len(t, mustGet(t, s, cfg).Checkpoint.Values, 1)
		}
	}
	require.NoError(t, p.Prune(context.Background(), newThreadID(), 1), "pruning an unknown thread")
}

func testPruneKeepMoreThanStored(t *testing.T, s checkpoint.Saver) {
	p := pruner(t, s)
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	require.NoError(t, p.Prune(context.Background(), thread, 3))
	require.NoError(t, p.Prune(context.Background(), thread, 10))
	require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
}

// testPruneKeepZeroDeletesAll: keep 0 deletes every checkpoint of the
// thread, in every namespace, and the thread starts afresh.
func testPruneKeepZeroDeletesAll(t *testing.T, s checkpoint.Saver) {
	p := pruner(t, s)
	ctx := context.Background()
	thread, other := newThreadID(), newThreadID()
	root := putChain(t, s, thread, "", 3, nil)
	putChain(t, s, thread, "child:1", 2, nil)
	kept := putChain(t, s, other, "", 2, nil)
	head := checkpoint.Config{ThreadID: thread, CheckpointID: root[2]}
	require.NoError(t, s.PutWrites(ctx, head, "t", []checkpoint.PendingWrite{pw("t", 0, "x", "1")}))

	require.NoError(t, p.Prune(ctx, thread, 0))
	for _, ns := range []string{"", "child:1"} {
		require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}), "ns %q", ns)
		_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns})
		requireNotFound(t, err, thread, "ns %q", ns)
	}
	requireNotFound(t, s.PutWrites(ctx, head, "t", []checkpoint.PendingWrite{pw("t", 1, "x", "1")}), thread, "writes on a pruned checkpoint")
	require.Equal(t, reversed(kept), listIDs(t, s, checkpoint.Config{ThreadID: other}, checkpoint.ListOptions{}))
	fresh := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"n": full("again", "9")}})
	require.Equal(t, []string{fresh}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread}).PendingWrites)
}

func testPruneNegativeKeepIsAnError(t *testing.T, s checkpoint.Saver) {
	p := pruner(t, s)
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 2, nil)
	require.Error(t, p.Prune(context.Background(), thread, -1))
	require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
}

// Prune

// testPruneDeltaChainsAcrossForks: the kept head of a fork reads a delta
// chain whose older links were written by checkpoints of the abandoned
// branch and by pruned ancestors; a child namespace uses the same channel
// and version names. Mirrors LangGraph conformance
// test_prune_keep_latest_across_namespaces and the delta keep-set tests.
func testPruneDeltaChainsAcrossForks(t *testing.T, s checkpoint.Saver) {
	p, ok := s.(checkpoint.Pruner)
	if !ok {
		t.Skip("not a Pruner")
	}
	ctx := context.Background()
	thread, other := newThreadID(), newThreadID()
	for _, th := range []string{thread, other} {
		c0 := mustPut(t, s, th, step{blobs: map[string]checkpoint.Blob{"items": full("i0", `[0]`), "name": full("n0", `"kept"`)}})
		c1 := mustPut(t, s, th, step{parent: c0, versions: map[string]string{"items": "i1", "name": "n0"}, blobs: map[string]checkpoint.Blob{"items": delta("i1", "i0", `[1]`)}})
		c2 := mustPut(t, s, th, step{parent: c1, versions: map[string]string{"items": "i2", "name": "n0"}, blobs: map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)}})
		f3 := mustPut(t, s, th, step{parent: c1, head: &c2, md: checkpoint.Metadata{Source: checkpoint.SourceFork},
			versions: map[string]string{"items": "i3f", "name": "n0"}, blobs: map[string]checkpoint.Blob{"items": delta("i3f", "i1", `["f"]`)}})
		mustPut(t, s, th, step{parent: f3, versions: map[string]string{"items": "i4f", "name": "n0"}, blobs: map[string]checkpoint.Blob{"items": delta("i4f", "i3f", `["g"]`)}})
		k0 := mustPut(t, s, th, step{ns: "child:1", blobs: map[string]checkpoint.Blob{"items": full("i0", `["c0"]`)}})
		mustPut(t, s, th, step{ns: "child:1", parent: k0, blobs: map[string]checkpoint.Blob{"items": delta("i1", "i0", `["c1"]`)}})
	}
	all := listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, all, 5)

	require.NoError(t, p.Prune(ctx, thread, 2))
	require.Equal(t, all[:2], listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	require.NoError(t, p.Prune(ctx, thread, 1))
	require.Equal(t, all[:1], listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
	for _, id := range all[1:] {
		_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: id})
		requireNotFound(t, err, thread, "pruned %s", id)
	}
	head := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, map[string]flat{"items": flatVal("i4f", `[0]`, `[1]`, `["f"]`, `["g"]`), "name": flatVal("n0", `"kept"`)}, flatValues(head.Checkpoint.Values))
	child := collect(t, s, checkpoint.Config{ThreadID: thread, Namespace: "child:1"}, checkpoint.ListOptions{})
	require.Len(t, child, 1)
	require.Equal(t, map[string]flat{"items": flatVal("i1", `["c0"]`, `["c1"]`)}, flatValues(child[0].Checkpoint.Values))

	// The chain goes on from the kept head.
	next := mustPut(t, s, thread, step{parent: head.Checkpoint.ID, versions: map[string]string{"items": "i5", "name": "n0"}, blobs: map[string]checkpoint.Blob{"items": delta("i5", "i4f", `[5]`)}})
	require.NoError(t, p.Prune(ctx, thread, 1))
	got := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, next, got.Checkpoint.ID)
	require.Equal(t, map[string]flat{"items": flatVal("i5", `[0]`, `[1]`, `["f"]`, `["g"]`, `[5]`), "name": flatVal("n0", `"kept"`)}, flatValues(got.Checkpoint.Values))

	// The other thread, with the same versions, is whole.
	require.Len(t, listIDs(t, s, checkpoint.Config{ThreadID: other}, checkpoint.ListOptions{}), 5)
	for _, tup := range collect(t, s, checkpoint.Config{ThreadID: other}, checkpoint.ListOptions{}) {
		require.Contains(t, flatValues(tup.Checkpoint.Values)["items"].Snapshot, "[0]")
	}
}
