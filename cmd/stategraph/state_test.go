package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

func TestStateOfAFinishedThread(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	v := decode[stateView](t, db, "state", threadDone)
	assert.Equal(t, threadDone, v.Thread)
	assert.Equal(t, 2, v.Step)
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
	assert.Regexp(t, `(?m)^step\s+2$`, r.stdout)
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
	assert.Equal(t, 2, in.Step)
	assert.NotEmpty(t, in.ID)
	assert.JSONEq(t, `{"question":"publish?","drafts":2}`, string(in.Value))
	r := onDB(t, db, "state", threadInterrupted)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^status\s+interrupted \(review\)$`, r.stdout)
	assert.Regexp(t, `(?m)^interrupts:\nNODE\s+WHEN\s+STEP\s+VALUE\s+ID\nreview\s+during\s+2\s+\{"drafts":2,"question":"publish\?"\}\s+`+in.ID+`$`, r.stdout)

	failed := decode[stateView](t, db, "state", threadFailed)
	assert.Equal(t, "error", failed.Status)
	require.Len(t, failed.Errors, 1)
	assert.Equal(t, "review", failed.Errors[0].Node)
	assert.Contains(t, failed.Errors[0].Error, reviewError)
	r = onDB(t, db, "state", threadFailed)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^task errors:\nNODE\s+ERROR\s+TASK\nreview\s+.*reviewer unavailable\s+`+failed.Errors[0].TaskID+`$`, r.stdout)
}

func TestStateOfAPastCheckpointByIDPrefixOrSuffix(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	first := hist[2] // step 0
	for _, ref := range []string{first.Checkpoint, first.Checkpoint[len(first.Checkpoint)-12:]} {
		v := decode[stateView](t, db, "state", threadDone, ref)
		assert.Equal(t, first.Checkpoint, v.Checkpoint)
		assert.Equal(t, 0, v.Step)
		assert.Equal(t, "pending", v.Status)
		assert.Equal(t, []string{"write"}, v.Next)
		assert.JSONEq(t, `["Go, draft 1"]`, string(v.Values["drafts"]))
		assert.NotContains(t, v.Values, "approved")
	}
	input := decode[stateView](t, db, "state", threadDone, hist[3].Checkpoint)
	assert.Equal(t, map[string]json.RawMessage{"topic": json.RawMessage(`"Go"`)}, input.Values)
	assert.Equal(t, inspect.StatePending, input.Status)
}
