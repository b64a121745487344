package checkpointtest

import (
	"context"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var headTests = []test{
	{name: "EqualsGetWithoutFieldValues", fn: testHeadEqualsGetWithoutFieldValues},
	{name: "LatestPerNamespace", fn: testHeadLatestPerNamespace},
	{name: "UnknownIsNotFound", fn: testHeadUnknownIsNotFound},
}

// headGetter returns s as a HeadGetter, or skips the test.
func headGetter(t *testing.T, s checkpoint.Saver) checkpoint.HeadGetter {
	h, ok := s.(checkpoint.HeadGetter)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.HeadGetter", s)
	}
	return h
}

// withoutFieldValues is tup as GetHead returns it: the values of the
// reserved channels only.
func withoutFieldValues(tup *checkpoint.Tuple) *checkpoint.Tuple {
	out := *tup
	out.Checkpoint.Values = maps.Clone(tup.Checkpoint.Values)
	maps.DeleteFunc(out.Checkpoint.Values, func(ch string, _ checkpoint.Value) bool { return !checkpoint.IsReserved(ch) })
	return &out
}

// putScheduledHistory stores a history whose checkpoints carry a schedule
// (NextChannel): one stored with the checkpoint under a version it owns,
// one the child keeps from its parent, one under a version no checkpoint
// owns; beside a field written as deltas, and pending writes on the
// latest. It returns the ids, oldest first.
func putScheduledHistory(t *testing.T, s checkpoint.Saver, thread string) []string {
	t.Helper()
	a := checkpoint.NewID()
	mustPut(t, s, thread, step{id: a,
		md: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1, Extra: map[string]any{"user": "ann"}},
		blobs: map[string]checkpoint.Blob{
			checkpoint.NextChannel: full(a+".next", `{"nodes":["a"]}`),
			"items":                full(a+".items", `[1]`),
		},
	})
	b := checkpoint.NewID()
	mustPut(t, s, thread, step{id: b, parent: a,
		md:       checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, Nodes: []string{"a"}},
		versions: map[string]string{checkpoint.NextChannel: a + ".next", "items": b + ".items"},
		blobs:    map[string]checkpoint.Blob{"items": delta(b+".items", a+".items", `[2]`)},
	})
	c := checkpoint.NewID()
	mustPut(t, s, thread, step{id: c, parent: b,
		md:       checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, Nodes: []string{"a"}},
		versions: map[string]string{checkpoint.NextChannel: "sched-" + thread, "items": c + ".items", "name": c + ".name"},
		blobs: map[string]checkpoint.Blob{
			checkpoint.NextChannel: full("sched-"+thread, `{"nodes":["b","c"]}`),
			"items":                delta(c+".items", b+".items", `[3]`),
			"name":                 full(c+".name", `"x"`),
		},
	})
	require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: c}, "task-b", []checkpoint.PendingWrite{
		pw("task-b", 0, "name", `"y"`), pw("task-b", -1, checkpoint.ErrorChannel, `{"error":"e"}`),
	}))
	return []string{a, b, c}
}

func testHeadEqualsGetWithoutFieldValues(t *testing.T, s checkpoint.Saver) {
	h := headGetter(t, s)
	thread := newThreadID()
	ids := putScheduledHistory(t, s, thread)
	ctx := context.Background()
	cfgs := []checkpoint.Config{{ThreadID: thread}}
	for _, id := range ids {
		cfgs = append(cfgs, checkpoint.Config{ThreadID: thread, CheckpointID: id})
	}
	for _, cfg := range cfgs {
		got, err := h.GetHead(ctx, cfg)
		require.NoError(t, err, "GetHead %+v", cfg)
		want := withoutFieldValues(mustGet(t, s, cfg))
		require.Contains(t, want.Checkpoint.Values, checkpoint.NextChannel, "%+v", cfg)
		requireSameTuple(t, want, got, "GetHead %+v", cfg)
	}
	latest, err := h.GetHead(ctx, checkpoint.Config{ThreadID: thread})
	require.NoError(t, err)
	require.Equal(t, ids[2], latest.Checkpoint.ID)
	require.Len(t, latest.PendingWrites, 2, "the latest's pending writes come with its head")
}

func testHeadLatestPerNamespace(t *testing.T, s checkpoint.Saver) {
	h := headGetter(t, s)
	thread := newThreadID()
	root := putChain(t, s, thread, "", 3, nil)
	child := putChain(t, s, thread, "child:1", 2, nil)
	ctx := context.Background()
	for ns, want := range map[string]string{"": root[2], "child:1": child[1]} {
		cfg := checkpoint.Config{ThreadID: thread, Namespace: ns}
		got, err := h.GetHead(ctx, cfg)
		require.NoError(t, err, "ns %q", ns)
		require.Equal(t, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: want}, got.Config)
		require.Empty(t, got.Checkpoint.Values, "ns %q: a checkpoint of fields alone has no value in its head", ns)
		requireSameTuple(t, withoutFieldValues(mustGet(t, s, cfg)), got, "ns %q", ns)
	}
}

func testHeadUnknownIsNotFound(t *testing.T, s checkpoint.Saver) {
	h := headGetter(t, s)
	thread := newThreadID()
	ctx := context.Background()
	_, err := h.GetHead(ctx, checkpoint.Config{ThreadID: thread})
	requireNotFound(t, err, thread, "unknown thread")
	putChain(t, s, thread, "", 1, nil)
	_, err = h.GetHead(ctx, checkpoint.Config{ThreadID: thread, Namespace: "nope"})
	requireNotFound(t, err, thread, "unknown namespace")
	_, err = h.GetHead(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()})
	requireNotFound(t, err, thread, "unknown checkpoint")
}
