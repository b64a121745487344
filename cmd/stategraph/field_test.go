package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Plan is the state of the graph whose nested values state -field and
// diff read: a goal and its steps, as a plan-and-execute agent keeps them.
type Plan struct {
	Plan Steps
}

// Steps is a plan: a goal and steps in order.
type Steps struct {
	Goal  string `json:"goal"`
	Steps []Step `json:"steps"`
}

// Step is one step of a plan.
type Step struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
}

// populatePlan runs thread "plan-1": plan writes a plan of two steps,
// then block marks the second blocked and adds a third.
func populatePlan(t testing.TB, saver checkpoint.Saver) {
	t.Helper()
	planF := state.Value("plan", func(p *Plan) *Steps { return &p.Plan })
	set := func(s Steps) graph.NodeFunc[Plan] {
		return func(ctx context.Context, _ Plan) (state.Update[Plan], error) {
			return state.Writes(planF.Set(s)), nil
		}
	}
	first := Steps{Goal: "deliver O1001", Steps: []Step{{"order", "done", ""}, {"stock_a", "todo", ""}}}
	second := Steps{Goal: "deliver O1001", Steps: []Step{{"order", "done", ""}, {"stock_a", "blocked", "no stock"}, {"stock_b", "todo", ""}}}
	app, err := graph.New(state.NewSchema(planF)).
		AddNode("plan", set(first)).
		AddNode("block", set(second)).
		AddEdge(graph.Start, "plan").AddEdge("plan", "block").AddEdge("block", graph.End).
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), state.Update[Plan]{}, graph.WithThread("plan-1"))
	require.NoError(t, err)
}

func TestStateFieldPrintsTheValueAtAPath(t *testing.T) {
	t.Parallel()
	db := newDB(t, "plan.db", populatePlan)
	hist := decode[[]historyRow](t, db, "history", "plan-1")
	planned := hist[1].Checkpoint // after plan, before block

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"state", "plan-1", "-field", "plan.steps.1.status"}, "blocked\n"},
		{[]string{"state", "plan-1", planned, "-field", "plan.steps.1.status"}, "todo\n"},
		{[]string{"state", "-field", "plan.goal", "plan-1"}, "deliver O1001\n"},
		{[]string{"state", "plan-1", "-field", "plan.steps[2]"}, "{\n  \"name\": \"stock_b\",\n  \"status\": \"todo\"\n}\n"},
		{[]string{"-json", "state", "plan-1", "-field", "plan.steps.1.status"}, "\"blocked\"\n"},
		{[]string{"state", "plan-1", "-field", "plan.steps.1", "-json"}, "{\n  \"name\": \"stock_a\",\n  \"status\": \"blocked\",\n  \"why\": \"no stock\"\n}\n"},
	} {
		r := onDB(t, db, tc.args...)
		require.Equal(t, 0, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, tc.want, r.stdout, "%v", tc.args)
	}

	for _, tc := range []struct {
		field  string
		code   int
		stderr string
	}{
		{"plan.steps.3", 1, `thread "plan-1" checkpoint "` + hist[0].Checkpoint + `": unknown field "plan.steps.3": plan.steps has 3 elements (indexes 0 to 2)`},
		{"plan.owner", 1, `unknown field "plan.owner": plan has no key "owner" (its keys are "goal", "steps")`},
		{"budget", 1, `unknown field "budget": the state has no field "budget" (its fields are "plan")`},
		{"plan..goal", 2, `state: -field: field path "plan..goal": an empty step`},
	} {
		r := onDB(t, db, "state", "plan-1", "-field", tc.field)
		assert.Equal(t, tc.code, r.code, tc.field)
		assert.Empty(t, r.stdout, tc.field)
		assert.Contains(t, r.stderr, tc.stderr, tc.field)
	}
}

// diff walks into objects and arrays: each changed leaf is a row with its
// path, and the path is one state -field reads.
func TestDiffShowsNestedChangesInFull(t *testing.T) {
	t.Parallel()
	db := newDB(t, "plan.db", populatePlan)
	hist := decode[[]historyRow](t, db, "history", "plan-1")
	a, b := hist[1].Checkpoint, hist[0].Checkpoint

	r := onDB(t, db, "diff", "plan-1", a, b)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 5, r.stdout)
	assert.Regexp(t, `^FIELD\s+CHANGE\s+DETAIL$`, out[1])
	assert.Regexp(t, `^plan\.steps\.1\.status\s+changed\s+"todo" → "blocked"$`, out[2])
	assert.Regexp(t, `^plan\.steps\.1\.why\s+added\s+= "no stock"$`, out[3])
	assert.Regexp(t, `^plan\.steps\.2\s+added\s+= \{"name":"stock_b","status":"todo"\}$`, out[4])

	d := decode[diffView](t, db, "diff", "plan-1", a, b)
	require.Len(t, d.Changes, 1)
	require.Len(t, d.Changes[0].Paths, 3)
	for _, p := range d.Changes[0].Paths {
		v := onDB(t, db, "-json", "state", "plan-1", b, "-field", p.Path)
		require.Equal(t, 0, v.code, v.stderr)
		assert.JSONEq(t, string(p.After), v.stdout, p.Path)
	}

	// Backwards, the added step and reason are removed.
	back := onDB(t, db, "diff", "plan-1", b, a)
	require.Equal(t, 0, back.code, back.stderr)
	assert.Regexp(t, `(?m)^plan\.steps\.1\.why\s+removed\s+was "no stock"$`, back.stdout)
	assert.Regexp(t, `(?m)^plan\.steps\.2\s+removed\s+was \{"name":"stock_b","status":"todo"\}$`, back.stdout)

	// A long value is whole when nothing limits the width, cut on a
	// narrow terminal.
	narrow := cli(t, []string{"COLUMNS=60"}, "-db", db, "diff", "plan-1", a, b)
	require.Equal(t, 0, narrow.code, narrow.stderr)
	requireFits(t, narrow.stdout[strings.Index(narrow.stdout, "\n")+1:], 60)
	assert.Contains(t, narrow.stdout, "…")
}

func TestStateFieldEscapesHostileText(t *testing.T) {
	t.Parallel()
	db := newDB(t, "hostile.db", populateHostile)
	r := onDB(t, db, "state", hostile, "-field", "topic")
	require.Equal(t, 0, r.code, r.stderr)
	requireTerminalSafe(t, r.stdout, "state -field")
	j := decode[string](t, db, "state", hostile, "-field", "topic")
	assert.Equal(t, hostile, j, "JSON keeps it exact")
}
