package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// BenchmarkLatestStateOfAChat reads the latest state of a 50-turn chat on
// SQLite and PostgreSQL by a fresh graph (no state cache), with the
// messages field stored as deltas (chat.Messages) and whole at every step
// (whole).
//
//	STATEGRAPH_POSTGRES_DSN=… go test ./chat/agent -run '^$' -bench LatestStateOfAChat
func BenchmarkLatestStateOfAChat(b *testing.B) {
	savers := map[string]func(b *testing.B) checkpoint.Saver{
		"sqlite": func(b *testing.B) checkpoint.Saver {
			lite, err := sqlite.Open(filepath.Join(b.TempDir(), "chat.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = lite.Close() })
			return lite
		},
	}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		savers["postgres"] = func(b *testing.B) checkpoint.Saver {
			pg := postgres.New(pgtest.Pool(b, nil), postgres.WithSchema(pgtest.Schema(b)))
			if err := pg.Migrate(context.Background()); err != nil {
				b.Fatal(err)
			}
			return pg
		}
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		open, ok := savers[backend]
		if !ok {
			continue
		}
		for _, whole := range []bool{false, true} {
			name := backend + "/deltas"
			if whole {
				name = backend + "/whole"
			}
			b.Run(name, func(b *testing.B) { latestState(b, open(b), whole) })
		}
	}
}

func latestState(b *testing.B, saver checkpoint.Saver, whole bool) {
	{
		{
			lite := saver
			app, msgs := chatGraph(b, lite, whole)
			for i := 1; i <= 50; i++ {
				if _, err := app.Invoke(b.Context(), state.Writes(msgs.Set([]chat.Message{question(i)})), graph.WithThread("t")); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				fresh, _ := chatGraph(b, lite, whole)
				snap, err := fresh.State(b.Context(), graph.WithThread("t"))
				if err != nil || len(snap.Values.Messages) != 200 {
					b.Fatal(err)
				}
			}
		}
	}
}
