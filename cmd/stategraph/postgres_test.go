package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// postgresDB returns the DSN of the test database and a fresh schema
// holding the test threads, dropped when t ends. It skips t when
// STATEGRAPH_POSTGRES_DSN is unset.
func postgresDB(t *testing.T) (dsn, schema string) {
	t.Helper()
	dsn, schema = pgtest.DSN(t), pgtest.Schema(t)
	ctx := context.Background()
	saver, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })
	require.NoError(t, saver.Migrate(ctx))
	populate(t, saver)
	return dsn, schema
}

func TestPostgresEveryCommand(t *testing.T) {
	t.Parallel()
	dsn, schema := postgresDB(t)
	run := func(args ...string) result {
		t.Helper()
		return cli(t, nil, append([]string{"-dsn", dsn, "-schema", schema}, args...)...)
	}
	decodePG := func(v any, args ...string) {
		t.Helper()
		r := run(append([]string{"-json"}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, jsonUnmarshal(r.stdout, v), r.stdout)
	}

	var threads []threadRow
	decodePG(&threads, "threads")
	require.Len(t, threads, 5)
	status := map[string]string{}
	for _, r := range threads {
		status[r.Thread] = r.Status
	}
	assert.Equal(t, map[string]string{threadDone: "done", threadPaused: "interrupted", threadInterrupted: "interrupted", threadFailed: "error", threadNested: "done"}, status)
	require.Equal(t, threadNested, threads[0].Thread, "most recently updated first")
	require.Len(t, threads[0].Namespaces, 1)
	ns := threads[0].Namespaces[0]
	assert.Regexp(t, `^drafting:[0-9a-f-]{36}$`, ns.Namespace)
	assert.Equal(t, 5, ns.Checkpoints)
	assert.Empty(t, threads[1].Namespaces)
	r := run("threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^done-1\s+3\s+done\s+5\s+0\s`, r.stdout)
	assert.Regexp(t, `(?m)^nested-1\s+2\s+done\s+4\s+1\s`, r.stdout)

	var hist []historyRow
	decodePG(&hist, "history", threadDone)
	require.Len(t, hist, 5)
	assert.Equal(t, 3, hist[0].Step)

	var st stateView
	decodePG(&st, "state", threadDone)
	assert.JSONEq(t, `["Go, draft 1","Go, draft 2"]`, string(st.Values["drafts"]))
	decodePG(&st, "state", threadInterrupted)
	require.Len(t, st.Interrupts, 1)
	decodePG(&st, "state", threadFailed)
	require.Len(t, st.Errors, 1)

	var d diffView
	decodePG(&d, "diff", threadDone, hist[2].Checkpoint, hist[0].Checkpoint)
	assert.Len(t, d.Changes, 3)

	r = run("mermaid", threadPaused)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, ":::pending")

	// A subgraph's namespace, by the subgraph node's name.
	var sub []historyRow
	decodePG(&sub, "history", threadNested, "-ns", subgraphNode)
	require.Len(t, sub, 5)
	assert.Equal(t, []string{"review"}, sub[0].Nodes)
	decodePG(&st, "state", threadNested, "-ns", subgraphNode)
	assert.Equal(t, ns.Namespace, st.Namespace)
	assert.JSONEq(t, `["Py, outline","Py, draft 1","Py, draft 2"]`, string(st.Values["drafts"]))
	decodePG(&d, "diff", threadNested, sub[3].Checkpoint, sub[0].Checkpoint, "-ns", ns.Namespace)
	assert.Len(t, d.Changes, 3)
	r = run("mermaid", threadNested, "-ns", subgraphNode)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "s3_review --> __end__;")
	r = run("history", threadNested, "-ns", "nope")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `unknown namespace "nope": thread "nested-1" has no such namespace; its one subgraph namespace is "`+ns.Namespace+`"`)

	r = run("prune", threadDone, "--keep", "2", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "pruned thread done-1: kept 2 of 5 checkpoints, removed 3\n", r.stdout)

	r = run("delete", "-yes", threadDone)
	require.Equal(t, 0, r.code, r.stderr)
	r = run("state", threadDone)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `unknown thread "done-1"`)
}

func TestPostgresDSNFromTheEnvironmentAndAWrongSchema(t *testing.T) {
	t.Parallel()
	dsn, schema := postgresDB(t)
	r := cli(t, []string{dsnEnv + "=" + dsn}, "-schema", schema, "history", threadPaused)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, lines(r.stdout), 5)

	r = cli(t, []string{dsnEnv + "=" + dsn}, "-schema", schema+"_missing", "threads")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no stategraph checkpoint tables in schema "`+schema+`_missing"`)
}

func TestPostgresStoppedThreadsArePending(t *testing.T) {
	t.Parallel()
	dsn, schema := pgtest.DSN(t), pgtest.Schema(t)
	ctx := context.Background()
	saver, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })
	require.NoError(t, saver.Migrate(ctx))
	populateStopped(t, saver)

	r := cli(t, nil, "-dsn", dsn, "-schema", schema, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^stopped-1\s+1\s+pending execute\s+3\s`, r.stdout)
	assert.Regexp(t, `(?m)^stopped-old-1\s+1\s+pending execute \(cancelled\)\s+3\s`, r.stdout)

	r = cli(t, nil, "-dsn", dsn, "-schema", schema, "-json", "state", threadStoppedOld)
	require.Equal(t, 0, r.code, r.stderr)
	var st stateView
	require.NoError(t, jsonUnmarshal(r.stdout, &st), r.stdout)
	assert.Equal(t, unfinished, st.Next)
	assert.Empty(t, st.Errors)
	assert.Len(t, st.Cancelled, 2)
}
