package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// BenchmarkOpen measures what a process pays to start on a migrated
// schema: Open (the pool and its first connection), Migrate (a check of
// the version), and the first GetHead on the new connection (which
// prepares its statement), then Close.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	s, _, schema := newSaver(b)
	thread := newThread()
	mustPut(b, s, putReq(thread, "", nil, map[string]checkpoint.Blob{checkpoint.NextChannel: fullBlob("1", `{}`)}))
	b.ReportAllocs()
	for b.Loop() {
		o, err := postgres.Open(ctx, dsn(b), postgres.WithSchema(schema))
		require.NoError(b, err)
		require.NoError(b, o.Migrate(ctx))
		_, err = o.GetHead(ctx, configOf(thread))
		require.NoError(b, err)
		require.NoError(b, o.Close())
	}
}

// BenchmarkReadFloor measures, on one pool, GetHead of a thread and the
// floor under it: a one-row SELECT by primary key (the thread's head
// row) and SELECT 1, each one round trip.
func BenchmarkReadFloor(b *testing.B) {
	ctx := context.Background()
	s, pool, schema := newSaver(b)
	thread := newThread()
	parent := ""
	for range 100 {
		parent = mustPut(b, s, putReq(thread, parent, nil, map[string]checkpoint.Blob{checkpoint.NextChannel: fullBlob(checkpoint.NewID(), `{"nodes":["a"]}`)}))
	}
	headSQL := `SELECT head FROM "` + schema + `".stategraph_heads WHERE thread_id = $1 AND ns = $2`
	b.Run("GetHead", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.GetHead(ctx, configOf(thread)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RowByKey", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var head string
			if err := pool.QueryRow(ctx, headSQL, thread, "").Scan(&head); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Select1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var n int
			if err := pool.QueryRow(ctx, `SELECT 1`).Scan(&n); err != nil {
				b.Fatal(err)
			}
		}
	})
}
