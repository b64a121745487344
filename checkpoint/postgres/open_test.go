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
