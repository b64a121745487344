package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

func TestStateOfAFinishedThread(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	v := decode[stateView](t, db, "state", threadDone)
	assert.Equal(t, threadDone, v.Thread)
	assert.Equal(t, 3, v.Step)
	assert.Equal(t, "loop", v.Source)
	assert.Equal(t, []string{"review"}, v.Nodes)
	assert.Equal(t, "done", v.Status)
	assert.Equal(t, []string{}, v.Next)
	assert.Empty(t, v.Interrupts)
	assert.Empty(t, v.Errors)
	values, err := json.Marshal(v.Values)
	require.NoError(t, err)
	// drafts is stored as a snapshot and a delta: state shows them joined.
	assert.JSONEq(t, `{"topic":"Go","drafts":["Go, draft 1","Go, draft 2"],"revisions":2,"approved":true}`, string(values))

	r := onDB(t, db, "state", threadDone)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^thread\s+done-1$`, r.stdout)
	assert.Regexp(t, `(?m)^checkpoint\s+`+v.Checkpoint+`$`, r.stdout)
	assert.Regexp(t, `(?m)^step\s+3$`, r.stdout)
	assert.Regexp(t, `(?m)^status\s+done$`, r.stdout)
	assert.Regexp(t, `(?m)^next\s+-$`, r.stdout)
	assert.Contains(t, r.stdout, "values:\n{\n  \"approved\": true,\n  \"drafts\": [\n    \"Go, draft 1\",\n    \"Go, draft 2\"\n  ],\n  \"revisions\": 2,\n  \"topic\": \"Go\"\n}\n")
	assert.NotContains(t, r.stdout, "interrupts:")
	assert.NotContains(t, r.stdout, "task errors:")
}

func TestStateShowsNextNodesInterruptsAndErrors(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)

	paused := decode[stateView](t, db, "state", threadPaused)
	assert.Equal(t, "interrupted", paused.Status)
	assert.Equal(t, []string{"review"}, paused.Next)
	assert.JSONEq(t, `["Rust, draft 1","Rust, draft 2"]`, string(paused.Values["drafts"]))

	asking := decode[stateView](t, db, "state", threadInterrupted)
	assert.Equal(t, "interrupted", asking.Status)
	require.Len(t, asking.Interrupts, 1)
	in := asking.Interrupts[0]
	assert.Equal(t, "review", in.Node)
	assert.Equal(t, "during", in.When)
	assert.Equal(t, 3, in.Step)
	assert.NotEmpty(t, in.ID)
	assert.JSONEq(t, `{"question":"publish?","drafts":2}`, string(in.Value))
	r := onDB(t, db, "state", threadInterrupted)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^status\s+interrupted \(review\)$`, r.stdout)
	assert.Regexp(t, `(?m)^interrupts:\nNODE\s+WHEN\s+STEP\s+VALUE\s+ID\nreview\s+during\s+3\s+\{"drafts":2,"question":"publish\?"\}\s+`+in.ID+`$`, r.stdout)

	failed := decode[stateView](t, db, "state", threadFailed)
	assert.Equal(t, "error", failed.Status)
	require.Len(t, failed.Errors, 1)
	assert.Equal(t, "review", failed.Errors[0].Node)
	assert.Contains(t, failed.Errors[0].Error, reviewError)
	r = onDB(t, db, "state", threadFailed)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^task errors:\nNODE\s+ERROR\s+TASK\nreview\s+.*reviewer unavailable\s+`+failed.Errors[0].TaskID+`$`, r.stdout)
}

func TestStateOfAPastCheckpointByIDOrSuffix(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	first := hist[2] // step 1: the first draft
	for _, ref := range []string{first.Checkpoint, first.Checkpoint[len(first.Checkpoint)-12:]} {
		v := decode[stateView](t, db, "state", threadDone, ref)
		assert.Equal(t, first.Checkpoint, v.Checkpoint)
		assert.Equal(t, 1, v.Step)
		assert.Equal(t, "pending", v.Status)
		assert.Equal(t, []string{"write"}, v.Next)
		assert.JSONEq(t, `["Go, draft 1"]`, string(v.Values["drafts"]))
		assert.NotContains(t, v.Values, "approved")
	}
	applied := decode[stateView](t, db, "state", threadDone, hist[3].Checkpoint)
	assert.Equal(t, map[string]json.RawMessage{"topic": json.RawMessage(`"Go"`)}, applied.Values)
	assert.Equal(t, inspect.StatePending, applied.Status)
	// The input checkpoint holds the state before the input (LangGraph's
	// shape), with __start__ next.
	input := decode[stateView](t, db, "state", threadDone, hist[4].Checkpoint)
	assert.Empty(t, input.Values)
	assert.Equal(t, []string{"__start__"}, input.Next)
	assert.Equal(t, inspect.StatePending, input.Status)
}

// idsThread is the thread idsDB writes, with the ids of its
// checkpoints, oldest first: UUIDv7s of one millisecond, as the runtime
// makes them, whose middles differ.
const idsThread = "ids-1"

var threadIDs = []string{
	"019a0000-0000-7000-8000-2b9c00000001",
	"019a0000-0000-7000-8000-a11100000002",
	"019a0000-0000-7000-8000-f00d0000a111",
}

// idsDB returns the path of a new SQLite database holding idsThread.
func idsDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ids.db")
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	parent := ""
	for step, id := range threadIDs {
		v := strconv.Itoa(step)
		_, err := saver.Put(t.Context(), checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: idsThread, CheckpointID: parent},
			Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now(), Versions: map[string]string{"step": v},
				New: map[string]checkpoint.Blob{"step": {Version: v, Data: []byte(v)}}},
			Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: step},
			ExpectHead: parent,
		})
		require.NoError(t, err)
		parent = id
	}
	require.NoError(t, saver.Close())
	return path
}

func TestACheckpointIsNamedByItsIDThenASuffixThenAnyPart(t *testing.T) {
	t.Parallel()
	db := idsDB(t)
	cases := []struct {
		ref  string
		want int // index in threadIDs
	}{
		{threadIDs[1], 1},
		{"0002", 1},      // a suffix
		{"a111", 2},      // the suffix of 2, though also within 1
		{"2b9c", 0},      // a chunk from the middle
		{"f00d0000a", 2}, // within 2 only
	}
	for _, c := range cases {
		v := decode[stateView](t, db, "state", idsThread, c.ref)
		assert.Equal(t, threadIDs[c.want], v.Checkpoint, c.ref)
		assert.JSONEq(t, strconv.Itoa(c.want), string(v.Values["step"]), c.ref)
	}
	d := decode[diffView](t, db, "diff", idsThread, "2b9c", "a111")
	assert.Equal(t, diffEnd{Checkpoint: threadIDs[0], Step: 0}, d.A)
	assert.Equal(t, diffEnd{Checkpoint: threadIDs[2], Step: 2}, d.B)

	r := onDB(t, db, "state", idsThread, "0000")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, `stategraph: unknown checkpoint "0000": it matches 3 checkpoints of thread "ids-1" (`+
		threadIDs[2]+", "+threadIDs[1]+", "+threadIDs[0]+"); give more of the id\n", r.stderr)
	r = onDB(t, db, "mermaid", idsThread, "2b9d")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, `stategraph: unknown checkpoint "2b9d": thread "ids-1" has no such checkpoint (list them with "stategraph history ids-1")`+"\n", r.stderr)
}

func TestACheckpointChunkMatchingSeveralListsThem(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	// UUIDv7 ids of one thread share their start: a prefix names them all.
	shared := hist[0].Checkpoint[:8]
	r := onDB(t, db, "state", threadDone, shared)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "stategraph: unknown checkpoint \""+shared+"\": it matches 5 checkpoints of thread \"done-1\" ("+
		hist[0].Checkpoint+", "+hist[1].Checkpoint+", "+hist[2].Checkpoint+", "+hist[3].Checkpoint+", "+hist[4].Checkpoint+"); give more of the id\n", r.stderr)
}
