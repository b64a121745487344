package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The database flags and -json may come before the command or after it,
// as go and git take their flags.
func TestDatabaseFlagsComeBeforeOrAfterTheCommand(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	want := onDB(t, db, "history", threadDone)
	require.Equal(t, 0, want.code, want.stderr)
	for _, args := range [][]string{
		{"history", "-db", db, threadDone},
		{"history", threadDone, "-db", db},
		{"history", "-db=" + db, threadDone},
		{"history", threadDone, "--db", db},
	} {
		r := cli(t, nil, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		assert.Equal(t, want.stdout, r.stdout, "%v", args)
	}

	r := cli(t, nil, "threads", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^THREAD\s+STEP`, r.stdout)
	r = cli(t, nil, "threads", "-db", db, "-json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "[\n"), r.stdout)

	// -ns before the command, for a command that reads one.
	sub := onDB(t, db, "history", threadNested, "-ns", subgraphNode)
	require.Equal(t, 0, sub.code, sub.stderr)
	r = cli(t, nil, "-ns", subgraphNode, "history", threadNested, "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, sub.stdout, r.stdout)

	// Both databases, one on each side, is still one too many.
	r = cli(t, nil, "-db", db, "threads", "-dsn", "postgres://x@127.0.0.1/db")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not both")
}

// Every command prints its usage and flags on stdout for -h, -help and
// --help, and exits 0, without a database.
func TestEveryCommandTakesHelp(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		for _, h := range []string{"-h", "--help", "-help"} {
			r := cli(t, nil, c.name, h)
			require.Equal(t, 0, r.code, "%s %s: %s", c.name, h, r.stderr)
			assert.Empty(t, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, "usage: stategraph [database flags] "+c.synopsis()+"\n\n"+c.summary+"\n"), "%s %s: %s", c.name, h, r.stdout)
			assert.Contains(t, r.stdout, "-db PATH", "%s %s: the database flags", c.name, h)
		}
		r := cli(t, nil, "help", c.name)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "usage: stategraph [database flags] "+c.synopsis())
	}
	r := cli(t, nil, "history", "-h")
	assert.Contains(t, r.stdout, "\n  -n N\n")
	assert.Contains(t, r.stdout, "\n  -limit N\n")
	r = cli(t, nil, "delete", "-h")
	assert.Contains(t, r.stdout, "\n  -yes\n")
	r = cli(t, nil, "state", "-h")
	assert.Contains(t, r.stdout, "\n  -field PATH\n")
	r = cli(t, nil, "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "usage: stategraph [-db PATH")
	r = cli(t, nil, "help", "nope")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `help: unknown command "nope"`)
}

// An unknown flag anywhere is a usage error: exit 2, the flag named and
// the command's usage on stderr, nothing on stdout.
func TestUnknownFlagsExitTwoWithTheUsage(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	for _, c := range commands {
		r := cli(t, nil, "-db", db, c.name, "-bogus")
		assert.Equal(t, 2, r.code, c.name)
		assert.Empty(t, r.stdout, c.name)
		assert.Contains(t, r.stderr, c.name+": flag provided but not defined: -bogus", c.name)
		assert.Contains(t, r.stderr, "usage: stategraph [database flags] "+c.synopsis(), c.name)
		assert.Contains(t, r.stderr, "stategraph "+c.name+" -h shows its flags", c.name)
	}
	r := cli(t, nil, "-ns", subgraphNode, "-db", db, "threads")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "threads: flag provided but not defined: -ns (threads reads no namespace)")
}
