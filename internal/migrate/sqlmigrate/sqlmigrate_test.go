package sqlmigrate_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/stategraph/stategraph/internal/migrate/sqlmigrate"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestUpAppliesEachMissingStepOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	one := sqlmigrate.Set{Table: "m", Steps: []string{`CREATE TABLE a (x INTEGER)`}}
	require.NoError(t, one.Up(ctx, db))
	two := sqlmigrate.Set{Table: "m", Steps: append(one.Steps, `ALTER TABLE a ADD COLUMN y INTEGER`)}
	require.NoError(t, two.Up(ctx, db))
	require.NoError(t, two.Up(ctx, db), "a second Up applies nothing (the ALTER would fail twice)")
	v, err := two.Version(ctx, db)
	require.NoError(t, err)
	require.Equal(t, 2, v)
}

func TestUpRefusesADatabaseANewerReleaseMigrated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	newer := sqlmigrate.Set{Table: "m", Steps: []string{`CREATE TABLE a (x INTEGER)`, `CREATE TABLE b (x INTEGER)`}}
	require.NoError(t, newer.Up(ctx, db))
	err := sqlmigrate.Set{Table: "m", Steps: newer.Steps[:1]}.Up(ctx, db)
	var ne *sqlmigrate.NewerError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, sqlmigrate.NewerError{Version: 2, Known: 1}, *ne)
}

func TestAFailedStepNamesItsVersionAndIsNotRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	set := sqlmigrate.Set{Table: "m", Steps: []string{`CREATE TABLE a (x INTEGER)`, `NOT SQL`}}
	require.ErrorContains(t, set.Up(ctx, db), "migration 2")
	v, err := set.Version(ctx, db)
	require.NoError(t, err)
	require.Equal(t, 1, v)
}
