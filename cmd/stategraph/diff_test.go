package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

func TestDiffNamesAddedRemovedChangedAndAppendedFields(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	head, step1 := hist[0].Checkpoint, hist[2].Checkpoint // the first draft, the end

	d := decode[diffView](t, db, "diff", threadDone, step1, head)
	assert.Equal(t, diffEnd{Checkpoint: step1, Step: 1}, d.A)
	assert.Equal(t, diffEnd{Checkpoint: head, Step: 3}, d.B)
	require.Len(t, d.Changes, 3)
	assert.Equal(t, inspect.Change{Field: "approved", Kind: inspect.Added, After: []byte("true")}, d.Changes[0])
	assert.Equal(t, "drafts", d.Changes[1].Field)
	assert.Equal(t, inspect.Appended, d.Changes[1].Kind)
	assert.Equal(t, 1, d.Changes[1].Appended)
	assert.Equal(t, inspect.Change{Field: "revisions", Kind: inspect.Changed, Before: []byte("1"), After: []byte("2")}, d.Changes[2])

	r := onDB(t, db, "diff", threadDone, step1, head)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 6)
	assert.Equal(t, "thread done-1: A "+step1+" (step 1) → B "+head+" (step 3)", out[0])
	assert.Regexp(t, `^FIELD\s+CHANGE\s+DETAIL$`, out[1])
	assert.Regexp(t, `^approved\s+added\s+= true$`, out[2])
	assert.Regexp(t, `^drafts\s+appended\s+\+1 element$`, out[3])
	assert.Regexp(t, `^drafts\.1\s+added\s+= "Go, draft 2"$`, out[4], "the appended element, in full")
	assert.Regexp(t, `^revisions\s+changed\s+1 → 2$`, out[5])

	// Backwards: approved is removed, and a shorter array is a change.
	back := decode[diffView](t, db, "diff", threadDone, head, step1)
	require.Len(t, back.Changes, 3)
	assert.Equal(t, inspect.Removed, back.Changes[0].Kind)
	assert.Equal(t, inspect.Changed, back.Changes[1].Kind)

	same := onDB(t, db, "diff", threadDone, head, head)
	require.Equal(t, 0, same.code, same.stderr)
	assert.Contains(t, same.stdout, "no field changed\n")
}

// attrs is an ordered map: it marshals its keys in the order they were
// set, as ordered-map types and non-Go writers do.
type attrs [][2]string

func (a attrs) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (a *attrs) UnmarshalJSON(data []byte) error {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*a = (*a)[:0]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		*a = append(*a, [2]string{k, m[k]})
	}
	return nil
}

// Task is the state of the graph the diff of a map field runs.
type Task struct{ Attrs attrs }

func TestDiffPrintsMapsWithSortedKeys(t *testing.T) {
	t.Parallel()
	attrsF := state.Value("attrs", func(s *Task) *attrs { return &s.Attrs })
	set := func(a attrs) graph.NodeFunc[Task] {
		return func(ctx context.Context, s Task) (state.Update[Task], error) {
			return state.Writes(attrsF.Set(a)), nil
		}
	}
	db := filepath.Join(t.TempDir(), "attrs.db")
	saver, err := sqlite.Open(db)
	require.NoError(t, err)
	app, err := graph.New(state.NewSchema(attrsF)).
		AddNode("assign", set(attrs{{"owner", "ann"}, {"due", "mon"}})).
		AddNode("postpone", set(attrs{{"due", "tue"}, {"owner", "ann"}})).
		AddEdge(graph.Start, "assign").AddEdge("assign", "postpone").AddEdge("postpone", graph.End).
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(t.Context(), state.Update[Task]{}, graph.WithThread("task-1"))
	require.NoError(t, err)
	require.NoError(t, saver.Close())
	hist := decode[[]historyRow](t, db, "history", "task-1")
	require.Len(t, hist, 4)
	a, b := hist[1].Checkpoint, hist[0].Checkpoint

	d := decode[diffView](t, db, "diff", "task-1", a, b)
	require.Len(t, d.Changes, 1)
	assert.JSONEq(t, `{"due":"mon","owner":"ann"}`, string(d.Changes[0].Before))
	assert.JSONEq(t, `{"due":"tue","owner":"ann"}`, string(d.Changes[0].After))
	r := onDB(t, db, "-json", "diff", "task-1", a, b)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\"before\": {\n        \"due\": \"mon\",\n        \"owner\": \"ann\"\n      },")
	assert.Contains(t, r.stdout, "\"after\": {\n        \"due\": \"tue\",\n        \"owner\": \"ann\"\n      }")

	r = onDB(t, db, "diff", "task-1", a, b)
	require.Equal(t, 0, r.code, r.stderr)
	// The table shows the key that changed, by its path.
	assert.Regexp(t, `(?m)^attrs\.due\s+changed\s+"mon" → "tue"$`, r.stdout)
	assert.NotContains(t, r.stdout, "owner", "an unchanged key is no change")
	r = onDB(t, db, "state", "task-1", a)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "values:\n{\n  \"attrs\": {\n    \"due\": \"mon\",\n    \"owner\": \"ann\"\n  }\n}\n")
}

func TestDiffTakesStepNumbers(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	head, step1 := hist[0].Checkpoint, hist[2].Checkpoint

	byStep := decode[diffView](t, db, "diff", threadDone, "1", "3")
	byID := decode[diffView](t, db, "diff", threadDone, step1, head)
	assert.Equal(t, byID, byStep, "a plain integer is a step, not a part of an id")

	input := decode[diffView](t, db, "diff", threadDone, "-1", "0")
	assert.Equal(t, -1, input.A.Step, "-1 is the input checkpoint's step, not a flag")
	assert.Equal(t, 0, input.B.Step)
}

func TestDiffRefusesAStepTheThreadDoesNotHaveAndAShortPartOfAnID(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	for _, tc := range []struct {
		ref, want string
	}{
		{"99", "has no checkpoint at step 99 (its steps run from -1 to 3"},
		{"a1f", `"a1f": give a step number, a whole checkpoint id or at least 4 characters of one`},
	} {
		r := onDB(t, db, "diff", threadDone, tc.ref, "1")
		assert.Equal(t, exitFailed, r.code, tc.ref)
		assert.Contains(t, r.stderr, tc.want)
	}
}
