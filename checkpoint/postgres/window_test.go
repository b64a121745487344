package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// deltaHistory stores n checkpoints on thread after parent, each adding
// one delta of channel "items" (version prefix+i, the element i) over the
// version before it; versions holds the parent's versions. It returns the
// last checkpoint's id and versions, and the deltas' bytes in order.
func deltaHistory(t *testing.T, s *postgres.Saver, thread, parent string, versions map[string]string, prefix string, n int) (string, map[string]string, [][]byte) {
	t.Helper()
	var deltas [][]byte
	for i := range n {
		v := fmt.Sprintf("%s%05d", prefix, i)
		data := fmt.Sprintf("[%q]", v)
		req := putReq(thread, parent, versions, map[string]checkpoint.Blob{"items": deltaBlob(v, versions["items"], data)})
		parent, versions = mustPut(t, s, req), req.Checkpoint.Versions
		deltas = append(deltas, []byte(data))
	}
	return parent, versions, deltas
}

// TestDeltaChainsOfEveryShapeReadWhole: Get, a List's first page (one
// checkpoint) and a List's longer pages rebuild the same value, in one
// round trip for a chain inside the window a page of one checkpoint reads
// and two for a chain longer than it, whatever the chain's shape: longer
// than the window, a fork whose blobs interleave with another branch's,
// a merged delta that covers the deltas before it.
func TestDeltaChainsOfEveryShapeReadWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, rt := tracedSaver(t)

	type chain struct {
		name, thread, id string
		snapshot         string // "" for a chain of deltas of the empty value
		deltas           [][]byte
		trips            int64 // of Get; 0: not pinned
	}
	var cases []chain

	{
		thread := newThread()
		root := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"items": fullBlob("a", `["s"]`), "name": fullBlob("n", `"x"`)}))
		id, _, deltas := deltaHistory(t, s, thread, root, map[string]string{"items": "a", "name": "n"}, "b", 40)
		cases = append(cases, chain{name: "inside the window", thread: thread, id: id, snapshot: `["s"]`, deltas: deltas, trips: 1})
	}
	{
		thread := newThread()
		n := postgres.ChainWindow*2 + postgres.ChainWindow/2
		id, _, deltas := deltaHistory(t, s, thread, "", map[string]string{}, "b", n)
		cases = append(cases, chain{name: "longer than the window, no snapshot", thread: thread, id: id, deltas: deltas, trips: 2})
	}
	{
		// Two branches from one checkpoint, stored alternately: each
		// branch's blobs sit between the other's in version order.
		thread := newThread()
		root := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"items": fullBlob("a", `["s"]`)}))
		forked, fv, common := deltaHistory(t, s, thread, root, map[string]string{"items": "a"}, "b", 5)
		ids := []string{forked, forked}
		vs := []map[string]string{fv, fv}
		deltas := [][][]byte{append([][]byte{}, common...), append([][]byte{}, common...)}
		head := forked
		for i := range 30 {
			for br := range 2 {
				v := fmt.Sprintf("c%05d-%d", i, br)
				data := fmt.Sprintf("[%q]", v)
				req := putReq(thread, ids[br], vs[br], map[string]checkpoint.Blob{"items": deltaBlob(v, vs[br]["items"], data)})
				req.ExpectHead = head // a fork: the head moves between the branches
				ids[br], vs[br] = mustPut(t, s, req), req.Checkpoint.Versions
				head = ids[br]
				deltas[br] = append(deltas[br], []byte(data))
			}
		}
		cases = append(cases,
			chain{name: "a fork interleaved with another branch", thread: thread, id: ids[0], snapshot: `["s"]`, deltas: deltas[0]},
			chain{name: "the other branch of the fork, the head", thread: thread, id: ids[1], snapshot: `["s"]`, deltas: deltas[1]})
	}
	{
		// Eight deltas, then one that covers them all from the
		// snapshot, then two more.
		thread := newThread()
		root := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"items": fullBlob("a", `["s"]`)}))
		id, versions, _ := deltaHistory(t, s, thread, root, map[string]string{"items": "a"}, "b", 8)
		merged := `["b00000","b00001","b00002","b00003","b00004","b00005","b00006","b00007","m"]`
		req := putReq(thread, id, versions, map[string]checkpoint.Blob{"items": deltaBlob("c", "a", merged)})
		id = mustPut(t, s, req)
		id, _, tail := deltaHistory(t, s, thread, id, req.Checkpoint.Versions, "d", 2)
		cases = append(cases, chain{name: "a merged delta", thread: thread, id: id, snapshot: `["s"]`, deltas: append([][]byte{[]byte(merged)}, tail...), trips: 1})
	}

	for _, c := range cases {
		cfg := checkpoint.Config{ThreadID: c.thread, CheckpointID: c.id}
		_, err := s.Get(ctx, cfg) // prepares the statements
		require.NoError(t, err, c.name)
		rt.take()
		got, err := s.Get(ctx, cfg)
		require.NoError(t, err, c.name)
		trips, stmts := rt.take()
		v := got.Checkpoint.Values["items"]
		if c.snapshot == "" {
			require.Nil(t, v.Snapshot, c.name)
		} else {
			require.Equal(t, c.snapshot, string(v.Snapshot), c.name)
		}
		require.Equal(t, c.deltas, v.Deltas, c.name)
		if c.trips > 0 {
			require.Equal(t, c.trips, trips, "%s: round trips of Get: %v", c.name, stmts)
		}
		// A List reads the same value on its first page (one
		// checkpoint) and on its longer ones.
		n := 0
		for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: c.thread}, checkpoint.ListOptions{}) {
			require.NoError(t, err, c.name)
			if tup.Checkpoint.ID == c.id {
				require.Equal(t, v, tup.Checkpoint.Values["items"], c.name)
				n++
			}
		}
		require.Equal(t, 1, n, c.name)
	}
}

// TestDamageBeyondTheWindowNamesTheCheckpoint: a blob deleted, or
// changed, deep in a chain longer than the window a page of one
// checkpoint reads is ErrCorrupt naming the checkpoint read.
func TestDamageBeyondTheWindowNamesTheCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, schema := newSaver(t)
	blobs := pgx.Identifier{schema, "stategraph_blobs"}.Sanitize()
	for _, damage := range []string{
		`DELETE FROM ` + blobs + ` WHERE thread_id = $1 AND version = 'b00010'`,
		`UPDATE ` + blobs + ` SET data = '["x"]'::bytea WHERE thread_id = $1 AND version = 'b00010'`,
		`UPDATE ` + blobs + ` SET base = 'b00003' WHERE thread_id = $1 AND version = 'b00010'`,
	} {
		thread := newThread()
		id, _, _ := deltaHistory(t, s, thread, "", map[string]string{}, "b", postgres.ChainWindow+40)
		_, err := pool.Exec(ctx, damage, thread)
		require.NoError(t, err)
		_, err = s.Get(ctx, configOf(thread))
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, damage)
		require.ErrorContains(t, err, id, damage)
	}
}
