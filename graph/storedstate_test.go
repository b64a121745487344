package graph_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// storedSavers returns a fresh saver of each backend: memory, SQLite and,
// when STATEGRAPH_POSTGRES_DSN is set, PostgreSQL.
func storedSavers(t *testing.T) map[string]checkpoint.Saver {
	t.Helper()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "stored.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = lite.Close() })
	out := map[string]checkpoint.Saver{"memory": memory.New(), "sqlite": lite}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		pg := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(pgtest.Schema(t)))
		require.NoError(t, pg.Migrate(context.Background()))
		out["postgres"] = pg
	}
	return out
}

type xyn struct {
	X []string
	Y []string
	N int
}

var (
	xynX      = state.Append("x", func(s *xyn) *[]string { return &s.X })
	xynY      = state.Append("y", func(s *xyn) *[]string { return &s.Y })
	xynN      = state.Value("n", func(s *xyn) *int { return &s.N })
	xynSchema = state.NewSchema(xynX, xynY, xynN)
)

// TestFreshProcessReadsTheWriteOfASiblingRoutedBackToItself pins a step in
// which a node routes to itself and to a sibling: the sibling's write to a
// field the node does not write must be stored, so a graph compiled anew
// on the same saver (another process) reads what the run returned.
func TestFreshProcessReadsTheWriteOfASiblingRoutedBackToItself(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			build := func() *graph.Compiled[xyn] {
				g := graph.New(xynSchema)
				g.AddNode("a", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
					return state.Writes(xynX.Set([]string{"a"}), xynN.Set(s.N+1)), nil
				})
				g.AddNode("b", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
					return state.Writes(xynY.Set([]string{"b"})), nil
				})
				g.AddEdge(graph.Start, "a")
				g.AddConditionalEdges("a", func(ctx context.Context, s xyn) (graph.Route[xyn], error) {
					if len(s.X) < 2 {
						return graph.Route[xyn]{To: []string{"a", "b"}}, nil
					}
					return graph.Route[xyn]{To: []string{graph.End}}, nil
				}, "a", "b", graph.End)
				g.AddEdge("b", graph.End)
				c, err := g.Compile(graph.WithCheckpointer(saver))
				require.NoError(t, err)
				return c
			}
			ctx := context.Background()
			out, err := build().Invoke(ctx, state.Writes(xynN.Set(0)), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"b"}, out.Y)
			snap, err := build().State(ctx, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, out, snap.Values)
		})
	}
}
