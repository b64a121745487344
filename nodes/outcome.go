package nodes

import (
	"slices"
	"time"

	"github.com/stategraph/stategraph/nodes/plan"
)

// StepOutcome is the result package of one step: what happened, what it
// concluded, the evidence, and whether the step — though it succeeded —
// showed that the planned route is blocked. It is JSON-serializable (past
// steps in graph state).
//
// Tool failure and a blocked route are different things: a failed tool has
// Status failed and Err set; a blocked route has Status completed, Blocked
// true and BlockReason/Impact set.
type StepOutcome struct {
	StepID      string          `json:"step_id"`
	Tool        string          `json:"tool,omitempty"`
	Status      plan.StepStatus `json:"status"`
	Conclusion  string          `json:"conclusion,omitempty"`
	Evidence    []string        `json:"evidence,omitempty"`
	Output      string          `json:"output,omitempty"`
	Err         string          `json:"error,omitempty"`
	ErrKind     plan.ErrorKind  `json:"error_kind,omitempty"`
	Blocked     bool            `json:"blocked,omitempty"`
	BlockReason string          `json:"block_reason,omitempty"`
	Impact      string          `json:"impact,omitempty"`
	Attempts    int             `json:"attempts"`
	Audit       []AuditRecord   `json:"audit,omitempty"` // one record per tool call
	// Start and End are when the agent's execute task ran the step; the
	// replan node adds the round's running time to Usage.Wall from them.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// abort, when set, is an error of a tool call that fails the task
	// rather than the step (see stopsTheTask); the outcome is not used.
	abort error
}

// applyOutcomes returns a copy of p with the outcomes recorded on their steps:
// status, result (the tool's output), error and evidence (appended, without
// duplicates). Outcomes for unknown steps are ignored.
func applyOutcomes(p plan.Plan, outcomes ...StepOutcome) plan.Plan {
	c := p.Clone()
	for _, o := range outcomes {
		i := c.Index(o.StepID)
		if i < 0 {
			continue
		}
		s := &c.Steps[i]
		s.Status = o.Status
		s.Result = o.Output
		s.Error = o.Err
		for _, e := range o.Evidence {
			if !slices.Contains(s.Evidence, e) {
				s.Evidence = append(s.Evidence, e)
			}
		}
	}
	return c
}

// toolCalls counts the tool calls recorded in outcomes.
func toolCalls(outcomes []StepOutcome) int {
	n := 0
	for _, o := range outcomes {
		n += len(o.Audit)
	}
	return n
}
