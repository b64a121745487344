package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBadInputNamesTheCulprit(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	notDB := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notDB, []byte("not a database, just some notes that are long enough to be a header\n"), 0o600))
	otherDB := filepath.Join(dir, "other.db")
	require.NoError(t, os.WriteFile(otherDB, nil, 0o600)) // an empty file is an empty SQLite database

	cases := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr []string
	}{
		{"missing file", nil, []string{"-db", missing, "threads"}, 1, []string{missing, "does not exist"}},
		{"directory", nil, []string{"-db", dir, "threads"}, 1, []string{dir, "is a directory"}},
		{"not a database", nil, []string{"-db", notDB, "threads"}, 1, []string{notDB, "not a readable SQLite database"}},
		{"another program's database", nil, []string{"-db", otherDB, "threads"}, 1, []string{otherDB, "not a stategraph checkpoint database"}},
		{"unknown thread: history", nil, []string{"-db", db, "history", "nope"}, 1, []string{`unknown thread "nope"`, "stategraph threads"}},
		{"unknown thread: state", nil, []string{"-db", db, "state", "nope"}, 1, []string{`unknown thread "nope"`}},
		{"unknown thread: diff", nil, []string{"-db", db, "diff", "nope", "a", "b"}, 1, []string{`unknown thread "nope"`}},
		{"unknown thread: mermaid", nil, []string{"-db", db, "mermaid", "nope"}, 1, []string{`unknown thread "nope"`}},
		{"unknown thread: delete", nil, []string{"-db", db, "delete", "nope"}, 1, []string{`unknown thread "nope"`}},
		{"unknown thread: prune", nil, []string{"-db", db, "prune", "nope", "--keep", "1"}, 1, []string{`unknown thread "nope"`}},
		{"unknown thread with -ns", nil, []string{"-db", db, "state", "nope", "-ns", subgraphNode}, 1, []string{`unknown thread "nope"`, "stategraph threads"}},
		{"unknown namespace", nil, []string{"-db", db, "history", threadNested, "-ns", "nope"}, 1, []string{`unknown namespace "nope": thread "nested-1" has no such namespace`, `"drafting:`}},
		{"namespace of a thread without subgraphs", nil, []string{"-db", db, "mermaid", threadDone, "-ns", subgraphNode}, 1, []string{`unknown namespace "drafting": thread "done-1" has only the root namespace`, "leave out -ns"}},
		{"unknown checkpoint: state", nil, []string{"-db", db, "state", threadDone, "zzzz"}, 1, []string{`unknown checkpoint "zzzz"`, `thread "done-1"`, "stategraph history done-1"}},
		{"unknown checkpoint: diff", nil, []string{"-db", db, "diff", threadDone, "zzzz", "yyyy"}, 1, []string{`unknown checkpoint "zzzz"`}},
		{"too short a part of an id", nil, []string{"-db", db, "state", threadDone, "-"}, 1, []string{`unknown checkpoint "-"`, "at least 4 characters"}},
		{"unknown step", nil, []string{"-db", db, "state", threadDone, "-7"}, 1, []string{`thread "done-1" has no checkpoint at step -7 (its steps run from -1 to 3`}},
		{"unknown command", nil, []string{"-db", db, "show"}, 2, []string{`unknown command "show"`, "usage: stategraph", "prune THREAD --keep N"}},
		{"no command", nil, []string{"-db", db}, 2, []string{"no command given", "usage: stategraph"}},
		{"unknown flag", nil, []string{"-verbose", "threads"}, 2, []string{"-verbose"}},
		{"missing thread", nil, []string{"-db", db, "history"}, 2, []string{"history: missing THREAD", "usage: stategraph [database flags] history THREAD"}},
		{"missing checkpoint", nil, []string{"-db", db, "diff", threadDone, "x"}, 2, []string{"diff: missing B"}},
		{"-ns without a value", nil, []string{"-db", db, "history", threadNested, "-ns"}, 2, []string{"history: flag needs an argument: -ns", "usage: stategraph [database flags] history THREAD [-ns NS]"}},
		{"-ns on a command without it", nil, []string{"-db", db, "delete", threadNested, "-ns", subgraphNode}, 2, []string{"delete: flag provided but not defined: -ns"}},
		{"extra argument", nil, []string{"-db", db, "threads", "x"}, 2, []string{`threads: unexpected argument "x"`}},
		{"prune without --keep", nil, []string{"-db", db, "prune", threadDone}, 2, []string{"--keep N is required"}},
		{"prune --keep 0", nil, []string{"-db", db, "prune", threadDone, "--keep", "0"}, 2, []string{"--keep must be at least 1, not 0"}},
		{"prune --keep -1", nil, []string{"-db", db, "prune", threadDone, "--keep", "-1"}, 2, []string{"--keep must be at least 1, not -1"}},
		{"prune --keep=-1", nil, []string{"-db", db, "prune", "--keep=-1", threadDone}, 2, []string{"--keep must be at least 1, not -1"}},
		{"prune --keep -3", nil, []string{"-db", db, "prune", threadDone, "--keep", "-3"}, 2, []string{"--keep must be at least 1, not -3"}},
		{"prune --keep abc", nil, []string{"-db", db, "prune", threadDone, "--keep", "abc"}, 2, []string{`invalid value "abc" for flag -keep: not an integer`}},
		{"prune --keep too big", nil, []string{"-db", db, "prune", threadDone, "--keep", "99999999999999999999"}, 2, []string{`invalid value "99999999999999999999" for flag -keep: value out of range`}},
		{"no database", nil, []string{"threads"}, 2, []string{"no database", "-db PATH", "STATEGRAPH_POSTGRES_DSN"}},
		{"both databases", nil, []string{"-db", db, "-dsn", "postgres://x@127.0.0.1/db", "threads"}, 2, []string{"not both"}},
		{"unparsable DSN", nil, []string{"-dsn", "postgres://u:secret@127.0.0.1:notaport/db", "threads"}, 1, []string{"postgres DSN", "not valid"}},
		{"unreachable DSN", nil, []string{"-dsn", "postgres://u:secret@127.0.0.1:1/db?connect_timeout=5", "threads"}, 1, []string{`cannot connect to postgres DSN "postgres://u:xxxxx@127.0.0.1:1/db?connect_timeout=5"`}},
		{"unreachable DSN from the environment", []string{"STATEGRAPH_POSTGRES_DSN=host=127.0.0.1 port=1 user=u password=secret connect_timeout=5"}, []string{"threads"}, 1, []string{"cannot connect to postgres DSN", "password=xxxxx"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := cli(t, c.env, c.args...)
			assert.Equal(t, c.code, r.code, "stderr: %s", r.stderr)
			assert.Empty(t, r.stdout)
			for _, s := range c.stderr {
				assert.Contains(t, r.stderr, s)
			}
			assert.NotContains(t, r.stderr, "secret", "a password must never be printed")
		})
	}
	// Nothing was created or migrated on the way.
	assert.NoFileExists(t, missing)
	data, err := os.ReadFile(otherDB)
	require.NoError(t, err)
	assert.Empty(t, data)
}

func TestHelpPrintsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"help"}} {
		r := cli(t, nil, args...)
		assert.Equal(t, 0, r.code)
		assert.Contains(t, r.stdout, "usage: stategraph [-db PATH | -dsn DSN [-schema NAME]] [-json] COMMAND [ARGS]")
		for _, c := range commands {
			assert.Contains(t, r.stdout, c.synopsis())
		}
	}
	r := cli(t, nil, "prune", "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "prune THREAD --keep N")
}
