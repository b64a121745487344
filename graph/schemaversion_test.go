package graph_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/sqlitetest"
	"github.com/stategraph/stategraph/state"
)

// The fixture of these tests is a SQLite database of checkpoints written
// by version 1 of a ticket schema. Regenerate it (only when the v1 graph
// below changes, which it must not once released) with
//
//	go test ./graph -run TestWriteSchemaV1Fixture -write-schema-fixture
var writeSchemaFixture = flag.Bool("write-schema-fixture", false, "rewrite graph/testdata/schema_v1.sql (a dump of the v1 ticket graph's database; needs the sqlite3 command)")

// schemaV1Fixture is the v1 database as a SQL dump (`sqlite3 FILE .dump`).
const schemaV1Fixture = "testdata/schema_v1.sql"

// Version 1 of the state: a query, a priority as a word, a log.
type ticketV1 struct {
	Query    string
	Priority string
	Log      []string
}

var (
	queryV1    = state.Value("query", func(t *ticketV1) *string { return &t.Query })
	priorityV1 = state.Value("priority", func(t *ticketV1) *string { return &t.Priority })
	logV1      = state.Append("log", func(t *ticketV1) *[]string { return &t.Log })
)

// Version 2: query renamed question, priority a number, a new owner with
// a default.
type ticket struct {
	Question string
	Priority int
	Log      []string
	Owner    string
}

var (
	question  = state.Value("question", func(t *ticket) *string { return &t.Question })
	priority  = state.Value("priority", func(t *ticket) *int { return &t.Priority })
	ticketLog = state.Append("log", func(t *ticket) *[]string { return &t.Log })
	owner     = state.Value("owner", func(t *ticket) *string { return &t.Owner })
)

// ticketV1toV2 is the migration from version 1 to 2.
func ticketV1toV2(s *state.Stored) error {
	s.Rename("query", "question")
	if err := state.Convert(s, "priority", func(word string) (int, error) {
		switch word {
		case "high":
			return 3, nil
		case "low", "":
			return 1, nil
		}
		return 0, fmt.Errorf("unknown priority %q", word)
	}); err != nil {
		return err
	}
	return s.Default("owner", "triage")
}

func ticketSchemaV2() *state.Schema[ticket] {
	return state.NewSchema(question, priority, ticketLog, owner).Versioned(2, map[int]state.Migration{1: ticketV1toV2})
}

// The v1 graph: "intake" logs twenty lines, one per step (a delta chain),
// then "tag" and "check" run in parallel, then "approve" and "close".
// "check" fails on the thread "pending" so that "tag"'s writes stay
// pending; "approve" is interrupted before on "interrupted".
func ticketGraphV1(t *testing.T, saver checkpoint.Saver) *graph.Compiled[ticketV1] {
	g := graph.New(state.NewSchema(queryV1, priorityV1, logV1)).
		AddNode("intake", func(ctx context.Context, s ticketV1) (state.Update[ticketV1], error) {
			return state.Writes(logV1.Set([]string{fmt.Sprintf("intake %d", len(s.Log))})), nil
		}).
		AddNode("tag", func(ctx context.Context, s ticketV1) (state.Update[ticketV1], error) {
			return state.Writes(priorityV1.Set("high"), logV1.Set([]string{"tagged"})), nil
		}).
		AddNode("check", func(ctx context.Context, s ticketV1) (state.Update[ticketV1], error) {
			if s.Query == "printer on fire" {
				return state.Update[ticketV1]{}, errors.New("checker down")
			}
			return state.Writes(logV1.Set([]string{"checked"})), nil
		}).
		AddNode("approve", func(ctx context.Context, s ticketV1) (state.Update[ticketV1], error) {
			return state.Writes(logV1.Set([]string{"approved"})), nil
		}).
		AddNode("close", func(ctx context.Context, s ticketV1) (state.Update[ticketV1], error) {
			return state.Writes(logV1.Set([]string{"closed"})), nil
		}).
		AddEdge(graph.Start, "intake").
		AddConditionalEdges("intake", graph.Router[ticketV1](func(ctx context.Context, s ticketV1) (graph.Route[ticketV1], error) {
			if len(s.Log) < 20 {
				return graph.Route[ticketV1]{To: []string{"intake"}}, nil
			}
			return graph.Route[ticketV1]{To: []string{"tag", "check"}}, nil
		}), "intake", "tag", "check").
		AddEdge("tag", "approve").AddEdge("check", "approve").AddEdge("approve", "close")
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

// ticketGraphV2 is the same graph over version 2 of the state; runs
// counts the nodes it runs.
func ticketGraphV2(t *testing.T, saver checkpoint.Saver, runs map[string]*atomic.Int64) *graph.Compiled[ticket] {
	count := func(n string) { runs[n].Add(1) }
	g := graph.New(ticketSchemaV2()).
		AddNode("intake", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
			count("intake")
			return state.Writes(ticketLog.Set([]string{fmt.Sprintf("intake %d", len(s.Log))})), nil
		}).
		AddNode("tag", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
			count("tag")
			return state.Writes(priority.Set(3), ticketLog.Set([]string{"tagged"})), nil
		}).
		AddNode("check", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
			count("check")
			return state.Writes(ticketLog.Set([]string{"checked by " + s.Owner})), nil
		}).
		AddNode("approve", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
			count("approve")
			return state.Writes(ticketLog.Set([]string{fmt.Sprintf("approved %q at priority %d", s.Question, s.Priority)})), nil
		}).
		AddNode("close", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
			count("close")
			return state.Writes(ticketLog.Set([]string{"closed"})), nil
		}).
		AddEdge(graph.Start, "intake").
		AddConditionalEdges("intake", graph.Router[ticket](func(ctx context.Context, s ticket) (graph.Route[ticket], error) {
			if len(s.Log) < 20 {
				return graph.Route[ticket]{To: []string{"intake"}}, nil
			}
			return graph.Route[ticket]{To: []string{"tag", "check"}}, nil
		}), "intake", "tag", "check").
		AddEdge("tag", "approve").AddEdge("check", "approve").AddEdge("approve", "close")
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

func newRuns() map[string]*atomic.Int64 {
	runs := map[string]*atomic.Int64{}
	for _, n := range []string{"intake", "tag", "check", "approve", "close"} {
		runs[n] = new(atomic.Int64)
	}
	return runs
}

// TestWriteSchemaV1Fixture writes the fixture, with -write-schema-fixture.
func TestWriteSchemaV1Fixture(t *testing.T) {
	if !*writeSchemaFixture {
		t.Skip("run with -write-schema-fixture to rewrite " + schemaV1Fixture)
	}
	dir := t.TempDir()
	saver, err := sqlite.Open(filepath.Join(dir, "v1.db"))
	require.NoError(t, err)
	app := ticketGraphV1(t, saver)
	ctx := context.Background()
	_, err = app.Invoke(ctx, state.Writes(queryV1.Set("reset my password")), graph.WithThread("finished"), graph.WithRecursionLimit(50))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, state.Writes(queryV1.Set("new laptop")), graph.WithThread("interrupted"), graph.WithRecursionLimit(50), graph.InterruptBefore("approve"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = app.Invoke(ctx, state.Writes(queryV1.Set("printer on fire")), graph.WithThread("pending"), graph.WithRecursionLimit(50))
	require.ErrorContains(t, err, "checker down")
	require.NoError(t, saver.Close())
	// One self-contained file (the WAL checkpointed into it on close),
	// kept as its text dump.
	dump, err := exec.Command("sqlite3", filepath.Join(dir, "v1.db"), ".dump").Output()
	require.NoError(t, err, "the sqlite3 command line dumps the fixture")
	require.NoError(t, os.WriteFile(schemaV1Fixture, dump, 0o644))
}

// openFixture opens a copy of the v1 fixture (the committed file is never
// written to).
func openFixture(t *testing.T) *sqlite.Saver {
	t.Helper()
	path := sqlitetest.FromDump(t, schemaV1Fixture, "v1.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// A checkpoint written by version 1 reads into the version 2 struct: the
// renamed field under its new name, the word a number, the new field its
// default, the log (a delta chain) whole.
func TestSchemaMigrationReadsV1Checkpoints(t *testing.T) {
	t.Parallel()
	app := ticketGraphV2(t, openFixture(t), newRuns())
	snap, err := app.State(t.Context(), graph.WithThread("finished"))
	require.NoError(t, err)
	v := snap.Values
	require.Equal(t, "reset my password", v.Question)
	require.Equal(t, 3, v.Priority)
	require.Equal(t, "triage", v.Owner)
	require.Len(t, v.Log, 24)
	require.Equal(t, []string{"intake 19", "checked", "tagged", "approved", "closed"}, v.Log[19:])
	require.Empty(t, snap.Next)

	// Every checkpoint of its history migrates, the oldest (before the
	// input: no fields at all) included.
	n := 0
	for snap, err := range app.History(t.Context(), graph.WithThread("finished")) {
		require.NoError(t, err)
		require.Equal(t, "triage", snap.Values.Owner, "step %d", snap.Metadata.Step)
		if snap.Metadata.Step >= 0 {
			require.Equal(t, "reset my password", snap.Values.Question, "step %d", snap.Metadata.Step)
		}
		n++
	}
	require.Equal(t, 25, n)
}

// A run interrupted under version 1 resumes under version 2. Its next
// checkpoint stores every field anew under version 2 (no blob of version
// 1 is referred to), so a fresh process reads it without migrating, and
// version 1's code refuses it by name.
func TestResumeAcrossSchemaChange(t *testing.T) {
	t.Parallel()
	saver := openFixture(t)
	runs := newRuns()
	out, err := ticketGraphV2(t, saver, runs).Invoke(t.Context(), state.Update[ticket]{}, graph.WithThread("interrupted"))
	require.NoError(t, err)
	require.Equal(t, `approved "new laptop" at priority 3`, out.Log[len(out.Log)-2])
	require.Equal(t, "closed", out.Log[len(out.Log)-1])
	require.Equal(t, "triage", out.Owner)
	for n, want := range map[string]int64{"intake": 0, "tag": 0, "check": 0, "approve": 1, "close": 1} {
		require.Equal(t, want, runs[n].Load(), "runs of %s", n)
	}

	raw, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "interrupted"})
	require.NoError(t, err)
	require.EqualValues(t, 2, raw.Metadata.Extra[graph.SchemaVersionKey])
	require.NotContains(t, raw.Checkpoint.Versions, "query", "a renamed field's old channel is not carried on")
	for _, name := range []string{"question", "priority", "log", "owner"} {
		require.Contains(t, raw.Checkpoint.Versions, name)
	}

	again, err := ticketGraphV2(t, saver, newRuns()).State(t.Context(), graph.WithThread("interrupted"))
	require.NoError(t, err)
	require.Equal(t, out, again.Values)

	// Rolled back to version 1: the new checkpoint is refused, naming it.
	_, err = ticketGraphV1(t, saver).State(t.Context(), graph.WithThread("interrupted"))
	require.ErrorIs(t, err, graph.ErrSchemaVersion)
	require.ErrorIs(t, err, state.ErrNewerVersion)
	var sve *graph.SchemaVersionError
	require.ErrorAs(t, err, &sve)
	require.Equal(t, graph.SchemaVersionError{Thread: "interrupted", Checkpoint: raw.Config.CheckpointID, Stored: 2, Schema: 1, Err: state.ErrNewerVersion}, *sve)
	require.ErrorContains(t, err, fmt.Sprintf(`thread "interrupted": checkpoint %q was written by state schema version 2, newer than this graph's version 1`, raw.Config.CheckpointID))
}

// A step that failed under version 1 leaves the writes of the task that
// finished: resumed under version 2 they are migrated (a partial set of
// fields: converted, never defaulted), that task is not run again, and
// the failed one runs under the new code.
func TestResumeAcrossSchemaChangeKeepsFinishedTasksWrites(t *testing.T) {
	t.Parallel()
	runs := newRuns()
	app := ticketGraphV2(t, openFixture(t), runs)
	out, err := app.Invoke(t.Context(), state.Update[ticket]{}, graph.WithThread("pending"))
	require.NoError(t, err)
	require.EqualValues(t, 0, runs["tag"].Load(), "tag finished under version 1")
	require.EqualValues(t, 1, runs["check"].Load())
	require.Equal(t, 3, out.Priority, "tag's pending write, converted")
	require.Equal(t, "printer on fire", out.Question)
	require.Contains(t, out.Log, "checked by triage")
	require.Contains(t, out.Log, "tagged")
}

// A schema that dropped the migration a stored version needs says which
// step is missing, naming the checkpoint.
func TestSchemaMigrationMissingStepIsAnError(t *testing.T) {
	t.Parallel()
	sc := state.NewSchema(question, priority, ticketLog, owner).Versioned(3, map[int]state.Migration{2: func(*state.Stored) error { return nil }})
	app, err := graph.New(sc).AddNode("intake", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
		return state.Update[ticket]{}, nil
	}).AddEdge(graph.Start, "intake").Compile(graph.WithCheckpointer(openFixture(t)))
	require.NoError(t, err)
	_, err = app.State(t.Context(), graph.WithThread("finished"))
	require.ErrorIs(t, err, graph.ErrSchemaVersion)
	require.ErrorContains(t, err, `thread "finished"`)
	require.ErrorContains(t, err, "no migration from schema version 1 to 2")
}

// A migration that fails stops the read with its error, naming the
// checkpoint: never a state with the field missing.
func TestSchemaMigrationFailureStopsTheRead(t *testing.T) {
	t.Parallel()
	sc := state.NewSchema(question, priority, ticketLog, owner).Versioned(2, map[int]state.Migration{1: func(s *state.Stored) error {
		return state.Convert(s, "priority", func(string) (int, error) { return 0, errors.New("no such priority") })
	}})
	app, err := graph.New(sc).AddNode("intake", func(ctx context.Context, s ticket) (state.Update[ticket], error) {
		return state.Update[ticket]{}, nil
	}).AddEdge(graph.Start, "intake").Compile(graph.WithCheckpointer(openFixture(t)))
	require.NoError(t, err)
	_, err = app.State(t.Context(), graph.WithThread("finished"))
	require.ErrorIs(t, err, graph.ErrSchemaVersion)
	require.ErrorContains(t, err, "migration from schema version 1 to 2")
	require.ErrorContains(t, err, "no such priority")
	require.ErrorContains(t, err, `checkpoint "`)
}

// An unversioned graph stores no version: its checkpoints are what they
// were before versions existed.
func TestUnversionedSchemaStoresNoVersion(t *testing.T) {
	t.Parallel()
	saver := openFixture(t)
	_, err := ticketGraphV1(t, saver).Invoke(t.Context(), state.Writes(queryV1.Set("q")), graph.WithThread("new"), graph.WithRecursionLimit(50))
	require.NoError(t, err)
	raw, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "new"})
	require.NoError(t, err)
	require.NotContains(t, raw.Metadata.Extra, graph.SchemaVersionKey)
}

// UpdateState on a thread version 1 left interrupted applies the update
// on the migrated state and stores a version 2 checkpoint; the resume
// then runs on it.
func TestUpdateStateAcrossSchemaChange(t *testing.T) {
	t.Parallel()
	saver := openFixture(t)
	runs := newRuns()
	app := ticketGraphV2(t, saver, runs)
	_, err := app.UpdateState(t.Context(), state.Writes(owner.Set("ada")), "", graph.WithThread("interrupted"))
	require.NoError(t, err)
	snap, err := app.State(t.Context(), graph.WithThread("interrupted"))
	require.NoError(t, err)
	require.Equal(t, "ada", snap.Values.Owner)
	require.Equal(t, "new laptop", snap.Values.Question)
	require.EqualValues(t, 2, snap.Metadata.Extra[graph.SchemaVersionKey])
	require.Equal(t, []string{"approve"}, snap.Next)

	out, err := app.Invoke(t.Context(), state.Update[ticket]{}, graph.WithThread("interrupted"))
	require.NoError(t, err)
	require.Equal(t, "ada", out.Owner)
	require.EqualValues(t, 1, runs["approve"].Load())
}
