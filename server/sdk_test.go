package server_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/internal/pgtest"
)

// TestLangGraphJSClient drives the server with LangGraph's own npm client,
// @langchain/langgraph-sdk (pinned in testdata/sdk/package.json): the
// scenario of testdata/sdk/client.mjs, against the embedded SQLite default,
// against PostgreSQL with runs in the serving process, and against two
// replica processes on one PostgreSQL database whose workers execute the
// runs (the scenario then also streams, joins, cancels and answers
// interrupts across them, and drives each multitask strategy, a cron and
// a webhook).
func TestLangGraphJSClient(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		js := langGraphJS(t)
		js.run(t, "the LangGraph JS client", "client.mjs", nil, newSQLiteHarness(t).http.URL)
	})
	t.Run("postgres", func(t *testing.T) {
		js := langGraphJS(t)
		js.run(t, "the LangGraph JS client", "client.mjs", nil, newPostgresHarness(t).http.URL)
	})
	t.Run("replicas", func(t *testing.T) {
		js := langGraphJS(t)
		pgtest.DSN(t)
		schema := pgtest.Schema(t)
		a, b := startReplica(t, schema), startReplica(t, schema)
		hooks := newHookSink(t)
		js.run(t, "the LangGraph JS client", "client.mjs", []string{"STATEGRAPH_REPLICA_B=" + b, "STATEGRAPH_HOOKS=" + hooks.url}, a)
	})
}

// langGraphJS is testdata/sdk with LangGraph's JS client, or skips.
func langGraphJS(t *testing.T) jsPackages {
	return needJS(t, filepath.Join("testdata", "sdk"), "@langchain/langgraph-sdk")
}
