// Package chattest holds what the tests of package chat and its
// subpackages share: a fresh saver of every backend.
package chattest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// Savers returns a fresh saver of each backend, by name: memory, sqlite
// and, when STATEGRAPH_POSTGRES_DSN is set, postgres (in a schema of its
// own, dropped with the test). Without the variable, the postgres entry is
// missing and the test logs how to run it.
func Savers(t *testing.T) map[string]checkpoint.Saver {
	t.Helper()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
	if err != nil {
		t.Fatalf("chattest: open sqlite: %v", err)
	}
	t.Cleanup(func() { _ = lite.Close() })
	out := map[string]checkpoint.Saver{"memory": memory.New(), "sqlite": lite}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") == "" {
		t.Log("postgres skipped: " + pgtest.SkipMessage)
		return out
	}
	pg := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(pgtest.Schema(t)))
	if err := pg.Migrate(context.Background()); err != nil {
		t.Fatalf("chattest: migrate postgres: %v", err)
	}
	out["postgres"] = pg
	return out
}
