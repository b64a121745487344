package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// durabilityTests pin what a second saver on the same storage (a restarted
// process, another worker) sees; they need Harness.Reopen. PutWrites has
// its own (IdempotentAcrossReopen).
var durabilityTests = []test{
	{name: "ReopenReadsEverything", fnh: testDurabilityReopenReadsEverything},
	{name: "ReopenContinuesTheHeads", fnh: testDurabilityReopenContinuesTheHeads},
}

// reopen returns h.Reopen(t, s), or skips t without Reopen.
func reopen(t *testing.T, s checkpoint.Saver, h *Harness) checkpoint.Saver {
	t.Helper()
	if h.Reopen == nil {
		t.Skip("the harness has no Reopen (a backend that keeps nothing outside the process)")
	}
	s2 := h.Reopen(t, s)
	require.NotNil(t, s2, "checkpointtest: Harness.Reopen returned nil")
	return s2
}

// testDurabilityReopenReadsEverything: a history over three namespaces,
// with delta chains, metadata and pending writes, reads back the same from
// a reopened saver, by Get and by List.
func testDurabilityReopenReadsEverything(t *testing.T, s checkpoint.Saver, h *Harness) {
	thread := newThreadID()
	nss := putCopySource(t, s, thread)
	before := map[string][]*checkpoint.Tuple{}
	for _, ns := range nss {
		before[ns] = collect(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{})
		require.NotEmpty(t, before[ns], "ns %q", ns)
	}
	s2 := reopen(t, s, h)
	for _, ns := range nss {
		got := collect(t, s2, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{})
		require.Len(t, got, len(before[ns]), "ns %q", ns)
		for i, want := range before[ns] {
			requireSameTuple(t, want, got[i], "ns %q checkpoint %d (list)", ns, i)
			requireSameTuple(t, want, mustGet(t, s2, want.Config), "ns %q checkpoint %d (get)", ns, i)
		}
		requireSameTuple(t, before[ns][0], mustGet(t, s2, checkpoint.Config{ThreadID: thread, Namespace: ns}), "ns %q latest", ns)
	}
	require.Len(t, listIDs(t, s2, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: map[string]any{"user": "ann", "n": 1}}), 1,
		"the reopened saver filters the stored metadata")
}

// testDurabilityReopenContinuesTheHeads: the reopened saver extends each
// head (delta chains included) where the first left off, its compare-and-
// set sees the first saver's heads, and the first sees its checkpoints.
func testDurabilityReopenContinuesTheHeads(t *testing.T, s checkpoint.Saver, h *Harness) {
	ctx := context.Background()
	thread := newThreadID()
	nss := putCopySource(t, s, thread)
	s2 := reopen(t, s, h)

	head := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	_, err := s2.Put(ctx, step{blobs: map[string]checkpoint.Blob{"items": full("x", `[]`)}}.request(thread))
	requireConflict(t, err, thread, "a first put on the reopened saver, onto a thread with a head")
	next := mustPut(t, s2, thread, step{parent: head.Checkpoint.ID, versions: map[string]string{"items": "i3", "name": "n1"},
		blobs: map[string]checkpoint.Blob{"items": delta("i3", "i2", `[3]`)}})
	for i, sv := range []checkpoint.Saver{s, s2} {
		tup := mustGet(t, sv, checkpoint.Config{ThreadID: thread})
		require.Equal(t, next, tup.Checkpoint.ID, "saver %d sees the new head", i+1)
		requireValues(t, map[string]val{"items": {"i3", `[1]`, []string{`[2]`, `[3]`}}, "name": {"n1", `"x"`, nil}}, tup.Checkpoint.Values, "saver %d", i+1)
	}
	_, err = s.Put(ctx, step{parent: head.Checkpoint.ID, blobs: map[string]checkpoint.Blob{"n": full("stale", "1")}}.request(thread))
	requireConflict(t, err, thread, "the first saver's stale head")

	// The child namespaces go on too.
	for _, ns := range nss[1:] {
		cfg := checkpoint.Config{ThreadID: thread, Namespace: ns}
		tup := mustGet(t, s2, cfg)
		ids := listIDs(t, s, cfg, checkpoint.ListOptions{})
		id := mustPut(t, s2, thread, step{ns: ns, parent: tup.Checkpoint.ID, versions: tup.Checkpoint.Versions})
		require.Equal(t, append([]string{id}, ids...), listIDs(t, s, cfg, checkpoint.ListOptions{}), "ns %q: the first saver lists the new checkpoint", ns)
	}
}
