package nodes

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlanReadyDoneProgress(t *testing.T) {
	t.Parallel()
	p := Plan{Goal: "g", Steps: []Step{st("a", "t", ""), st("b", "t", "", "a"), st("c", "t", "", "a"), st("d", "", "", "b", "c")}}
	require.Equal(t, []string{"a"}, stepIDs(Plan{Steps: p.Ready()}))
	require.False(t, p.Done())
	require.Equal(t, Progress{Total: 4, Pending: 4}, p.Progress())

	p = ApplyOutcomes(p, StepOutcome{StepID: "a", Status: StatusCompleted, Output: "ra", Evidence: []string{"e"}})
	require.Equal(t, []string{"b", "c"}, stepIDs(Plan{Steps: p.Ready()}), "independent steps are ready together, in plan order")
	p = ApplyOutcomes(p, StepOutcome{StepID: "b", Status: StatusCompleted}, StepOutcome{StepID: "c", Status: StatusRunning})
	require.Empty(t, p.Ready())
	require.False(t, p.Stuck(), "c is still running")
	p = ApplyOutcomes(p, StepOutcome{StepID: "c", Status: StatusSkipped, Err: "skipped"})
	require.Equal(t, []string{"d"}, stepIDs(Plan{Steps: p.Ready()}), "a skipped dependency does not hold d back")
	require.False(t, p.Stuck())
	require.True(t, p.WithStatus("c", StatusFailed).Stuck(), "d waits on a failed step")
	require.Equal(t, Progress{Total: 4, Pending: 1, Completed: 2, Skipped: 1}, p.Progress())
	require.InDelta(t, 0.75, p.Progress().Fraction(), 1e-9)
	p = ApplyOutcomes(p, StepOutcome{StepID: "d", Status: StatusCompleted}, StepOutcome{StepID: "ghost", Status: StatusCompleted})
	require.True(t, p.Done())
	require.Equal(t, []string{"a", "b", "d"}, stepIDs(Plan{Steps: p.Completed()}))
	require.False(t, Plan{}.Done(), "an empty plan is not done")
}

func TestPlanApplyDoesNotAlias(t *testing.T) {
	t.Parallel()
	p := Plan{Steps: []Step{{ID: "a", Evidence: []string{"e1"}, DependsOn: []string{}}}}
	q := ApplyOutcomes(p, StepOutcome{StepID: "a", Status: StatusCompleted, Evidence: []string{"e1", "e2"}})
	require.Equal(t, []string{"e1", "e2"}, q.Steps[0].Evidence)
	require.Equal(t, []string{"e1"}, p.Steps[0].Evidence)
	require.Equal(t, StepStatus(""), p.Steps[0].Status)
	w := q.WithStatus("a", StatusPending)
	require.Equal(t, StatusCompleted, q.Steps[0].Status)
	require.Equal(t, StatusPending, w.Steps[0].Status)
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	p := Plan{Goal: "g", Steps: []Step{{ID: "a", Description: "d", Tool: "t", Input: json.RawMessage(`{"k":1}`), DependsOn: []string{"z"},
		Status: StatusFailed, Result: "r", Error: "e", Evidence: []string{"x"}}}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.JSONEq(t, `{"goal":"g","steps":[{"id":"a","description":"d","tool":"t","input":{"k":1},"depends_on":["z"],"status":"failed","result":"r","error":"e","evidence":["x"]}]}`, string(b))
	var back Plan
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, p, back)

	o := StepOutcome{StepID: "a", Status: StatusCompleted, Blocked: true, BlockReason: "r", Audit: []AuditRecord{{StepID: "a"}}}
	b, err = json.Marshal(o)
	require.NoError(t, err)
	var ob StepOutcome
	require.NoError(t, json.Unmarshal(b, &ob))
	require.Equal(t, o, ob)
}

func TestStepStatus(t *testing.T) {
	t.Parallel()
	require.True(t, StepStatus("").Valid())
	require.False(t, StepStatus("done").Valid())
	require.True(t, StatusSkipped.Terminal())
	require.False(t, StatusRunning.Terminal())
}
