package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// history stores five checkpoints on thread: channel "n" changes every
// step, "log" is appended to as deltas over a snapshot at l0 then a new
// snapshot at l3, and "const" never changes. It returns the ids oldest
// first; each has a pending write.
func history(t *testing.T, s checkpoint.Saver, thread string) []string {
	t.Helper()
	logs := []checkpoint.Blob{
		fullBlob("l0", "[0]"), deltaBlob("l1", "l0", "[1]"), deltaBlob("l2", "l1", "[2]"),
		fullBlob("l3", "[0,1,2,3]"), deltaBlob("l4", "l3", "[4]"),
	}
	var ids []string
	parent := ""
	var versions map[string]string
	for i, l := range logs {
		blobs := map[string]checkpoint.Blob{"n": fullBlob("n"+string(rune('0'+i)), "x"), "log": l}
		if i == 0 {
			blobs["const"] = fullBlob("c", "c")
		}
		req := putReq(thread, parent, versions, blobs)
		parent = mustPut(t, s, req)
		versions = req.Checkpoint.Versions
		ids = append(ids, parent)
		require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: parent}, "task",
			[]checkpoint.PendingWrite{{Channel: "n", Value: []byte("w")}}))
	}
	return ids
}

// count returns how many rows of table belong to thread.
func count(t *testing.T, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, schema, table, thread string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(),
		"SELECT count(*) FROM "+pgx.Identifier{schema, table}.Sanitize()+" WHERE thread_id = $1", thread).Scan(&n))
	return n
}

func TestPruneKeepsTheBlobsOfKeptCheckpointsAndTheirDeltaChains(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	ctx := context.Background()
	cases := []struct {
		keep        int
		checkpoints int
		blobs       int // n versions kept + const + log chain
	}{
		{keep: 1, checkpoints: 1, blobs: 1 + 1 + 2},  // n4, c, l4 l3
		{keep: 2, checkpoints: 2, blobs: 2 + 1 + 2},  // n3 n4, c, l3 l4
		{keep: 3, checkpoints: 3, blobs: 3 + 1 + 5},  // n2..n4, c, l2 l1 l0 l3 l4
		{keep: 10, checkpoints: 5, blobs: 5 + 1 + 5}, // everything
		{keep: 0, checkpoints: 0, blobs: 0},
	}
	for _, c := range cases {
		thread := newThread()
		ids := history(t, s, thread)
		require.NoError(t, s.Prune(ctx, thread, c.keep))
		require.Equal(t, c.checkpoints, count(t, pool, schema, "stategraph_checkpoints", thread), "keep %d", c.keep)
		require.Equal(t, c.blobs, count(t, pool, schema, "stategraph_blobs", thread), "keep %d", c.keep)
		require.Equal(t, c.checkpoints, count(t, pool, schema, "stategraph_writes", thread), "keep %d", c.keep)
		var listed []string
		for tup, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{}) {
			require.NoError(t, err, "keep %d: every kept checkpoint reads back whole", c.keep)
			listed = append(listed, tup.Checkpoint.ID)
		}
		want := []string{}
		for i := len(ids) - 1; i >= 0 && len(want) < c.checkpoints; i-- {
			want = append(want, ids[i])
		}
		require.Equal(t, want, append([]string{}, listed...), "keep %d", c.keep)
		if c.keep == 0 {
			// The thread is empty: it starts again from no head.
			mustPut(t, s, putReq(thread, "", nil, nil))
		} else {
			// The head is unchanged.
			mustPut(t, s, putReq(thread, ids[len(ids)-1], nil, nil))
		}
	}
	require.Error(t, s.Prune(ctx, newThread(), -1))
}

func TestCopyThread(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	src, dst := newThread(), newThread()
	ids := history(t, s, src)

	require.NoError(t, s.CopyThread(ctx, src, dst))
	for _, id := range ids {
		a, err := s.Get(ctx, checkpoint.Config{ThreadID: src, CheckpointID: id})
		require.NoError(t, err)
		b, err := s.Get(ctx, checkpoint.Config{ThreadID: dst, CheckpointID: id})
		require.NoError(t, err)
		require.Equal(t, a.Checkpoint.Values, b.Checkpoint.Values)
		require.Equal(t, a.PendingWrites, b.PendingWrites)
		require.Equal(t, dst, b.Config.ThreadID)
	}
	// dst has its own head: it advances independently of src.
	mustPut(t, s, putReq(dst, ids[len(ids)-1], nil, nil))
	mustPut(t, s, putReq(src, ids[len(ids)-1], nil, nil))

	err := s.CopyThread(ctx, src, dst)
	require.ErrorIs(t, err, checkpoint.ErrConflict, "dst exists")
	require.ErrorContains(t, err, dst)
	unknown := newThread()
	err = s.CopyThread(ctx, unknown, newThread())
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorContains(t, err, unknown)
}

func TestListFilterMatchesLikeMetadataMatches(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	mds := []checkpoint.Metadata{
		{Source: checkpoint.SourceInput, Step: -1, Extra: map[string]any{"tags": []string{"a", "b"}, "user": "ann"}},
		{Source: checkpoint.SourceLoop, Step: 0, RunID: "r1", Extra: map[string]any{"tags": []string{"a"}, "cfg": map[string]any{"k": 1, "j": true}}},
		{Source: checkpoint.SourceLoop, Step: 1, RunID: "r1", Extra: map[string]any{"score": 2.5, "cfg": map[string]any{"k": 1}}},
	}
	parent := ""
	for _, md := range mds {
		req := putReq(thread, parent, nil, nil)
		req.Metadata = md
		parent = mustPut(t, s, req)
	}
	filters := []map[string]any{
		{"source": "loop"},
		{"source": checkpoint.SourceInput, "step": -1},
		{"step": 1.0},
		{"run_id": "r1"},
		{"user": "ann"},
		{"tags": []string{"a"}},   // equality, not containment
		{"tags": []any{"b", "a"}}, // order matters
		{"cfg": map[string]any{"k": 1}},
		{"score": 2.5},
		{"missing": nil},
		{"source": "loop", "score": 2.5, "run_id": "r1"},
		{"nodes": nil},
	}
	for _, f := range filters {
		want := 0
		for _, md := range mds {
			if md.Matches(f) {
				want++
			}
		}
		got := 0
		for _, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{Filter: f}) {
			require.NoError(t, err)
			got++
		}
		require.Equal(t, want, got, "filter %v", f)
	}
}

func TestListPagesThroughLongHistories(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	parent := ""
	var ids []string
	for i := range 250 {
		req := putReq(thread, parent, nil, map[string]checkpoint.Blob{"n": fullBlob(checkpoint.NewID(), "1")})
		req.Metadata.Step = i
		parent = mustPut(t, s, req)
		ids = append(ids, parent)
	}
	for _, limit := range []int{0, 1, 100, 101, 249, 250, 1000} {
		var got []string
		for tup, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{Limit: limit, Filter: map[string]any{"source": "loop"}}) {
			require.NoError(t, err)
			got = append(got, tup.Checkpoint.ID)
		}
		n := len(ids)
		if limit > 0 && limit < n {
			n = limit
		}
		require.Len(t, got, n, "limit %d", limit)
		for i, id := range got {
			require.Equal(t, ids[len(ids)-1-i], id, "limit %d item %d", limit, i)
		}
	}
}
