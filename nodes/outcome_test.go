package nodes_test

import (
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
)

func TestPlanReadyDoneProgress(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Goal: "g", Steps: []plan.Step{st("a", "t", ""), st("b", "t", "", "a"), st("c", "t", "", "a"), st("d", "", "", "b", "c")}}
	require.Equal(t, []string{"a"}, stepIDs(plan.Plan{Steps: p.Ready()}))
	require.False(t, p.Done())
	require.Equal(t, plan.Progress{Total: 4, Pending: 4}, p.Progress())

	p = nodes.ApplyOutcomes(p, nodes.StepOutcome{StepID: "a", Status: plan.StatusCompleted, Output: "ra", Evidence: []string{"e"}})
	require.Equal(t, []string{"b", "c"}, stepIDs(plan.Plan{Steps: p.Ready()}), "independent steps are ready together, in plan order")
	p = nodes.ApplyOutcomes(p, nodes.StepOutcome{StepID: "b", Status: plan.StatusCompleted}, nodes.StepOutcome{StepID: "c", Status: plan.StatusRunning})
	require.Empty(t, p.Ready())
	require.False(t, p.Stuck(), "c is still running")
	p = nodes.ApplyOutcomes(p, nodes.StepOutcome{StepID: "c", Status: plan.StatusSkipped, Err: "skipped"})
	require.Equal(t, []string{"d"}, stepIDs(plan.Plan{Steps: p.Ready()}), "a skipped dependency does not hold d back")
	require.False(t, p.Stuck())
	require.True(t, p.WithStatus("c", plan.StatusFailed).Stuck(), "d waits on a failed step")
	require.Equal(t, plan.Progress{Total: 4, Pending: 1, Completed: 2, Skipped: 1}, p.Progress())
	require.InDelta(t, 0.75, p.Progress().Fraction(), 1e-9)
	p = nodes.ApplyOutcomes(p, nodes.StepOutcome{StepID: "d", Status: plan.StatusCompleted}, nodes.StepOutcome{StepID: "ghost", Status: plan.StatusCompleted})
	require.True(t, p.Done())
	require.Equal(t, []string{"a", "b", "d"}, stepIDs(plan.Plan{Steps: p.Completed()}))
	require.False(t, plan.Plan{}.Done(), "an empty plan is not done")
}

func TestApplyOutcomesDoesNotAlias(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Steps: []plan.Step{{ID: "a", Evidence: []string{"e1"}, DependsOn: []string{}}}}
	q := nodes.ApplyOutcomes(p, nodes.StepOutcome{StepID: "a", Status: plan.StatusCompleted, Evidence: []string{"e1", "e2"}})
	require.Equal(t, []string{"e1", "e2"}, q.Steps[0].Evidence)
	require.Equal(t, []string{"e1"}, p.Steps[0].Evidence)
	require.Equal(t, plan.StepStatus(""), p.Steps[0].Status)
	w := q.WithStatus("a", plan.StatusPending)
	require.Equal(t, plan.StatusCompleted, q.Steps[0].Status)
	require.Equal(t, plan.StatusPending, w.Steps[0].Status)
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Goal: "g", Steps: []plan.Step{{ID: "a", Description: "d", Tool: "t", Input: json.RawMessage(`{"k":1}`), DependsOn: []string{"z"},
		Status: plan.StatusFailed, Result: "r", Error: "e", Evidence: []string{"x"}}}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.JSONEq(t, `{"goal":"g","steps":[{"id":"a","description":"d","tool":"t","input":{"k":1},"depends_on":["z"],"status":"failed","result":"r","error":"e","evidence":["x"]}]}`, string(b))
	var back plan.Plan
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, p, back)

	o := nodes.StepOutcome{StepID: "a", Status: plan.StatusCompleted, Blocked: true, BlockReason: "r", Audit: []nodes.AuditRecord{{StepID: "a"}}}
	b, err = json.Marshal(o)
	require.NoError(t, err)
	var ob nodes.StepOutcome
	require.NoError(t, json.Unmarshal(b, &ob))
	require.Equal(t, o, ob)
}
