package nodes

import (
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
)

// AgentState is the state of the plan-and-execute graph. Every field is a
// channel of the agent's schema (Agent.Schema) and marshals to JSON, so a
// run can be checkpointed, inspected with State and History, and resumed.
// A node a user adds to the agent's graph writes it with Agent.Schema's
// Edit.
type AgentState struct {
	// Goal and Constraints are the user's request (see NewInput).
	Goal        string   `json:"goal"`
	Constraints []string `json:"constraints,omitempty"`
	// Plan is the current plan. Steps sent to execute in the running round
	// have status running; the replan node records the round's outcomes.
	Plan plan.Plan `json:"plan"`
	// PastSteps are the outcomes of every step run, in round order (append).
	// Their audit records are in Audit, not repeated here.
	PastSteps []StepOutcome `json:"past_steps,omitempty"`
	// Applied is how many of PastSteps the replan node has recorded on the
	// plan: PastSteps[Applied:] are the outcomes of the running round.
	Applied int `json:"applied"`
	// Usage is what the run has spent (summed with Usage.Add); the replan
	// count is Usage.Replans. The Sends to execute carry it too: each task
	// computes its share of the tool calls left from it.
	Usage Usage `json:"usage"`
	// Audit has one record per tool call (append).
	Audit AuditLog `json:"audit,omitempty"`
	// Decisions are the replan node's decisions, one per round (append),
	// without the revised plans (the plan is in Plan).
	Decisions []Decision `json:"decisions,omitempty"`
	// Stop names the budget that ended the run early; Blocked says why the
	// plan could not go on. Both are empty when the plan finished.
	Stop    *StopReason `json:"stop,omitempty"`
	Blocked string      `json:"blocked,omitempty"`
	// Response is the final answer, written by the respond node.
	Response Response `json:"response"`
	// Current is the id of the step an execute task runs. It is set only in
	// the input of the Sends to execute, never in the graph's own state.
	Current string `json:"current,omitempty"`
}

// Answer returns the final answer's text ("" until the respond node ran).
func (s AgentState) Answer() string { return s.Response.Text }

// Done reports whether the respond node has answered.
func (s AgentState) Done() bool { return s.Response.Text != "" }

// The fields of AgentState: stable names for checkpoints, typed writes for
// the agent's nodes. A user's node writes through Agent.Schema's Edit.
var (
	fieldGoal        = state.Value("goal", func(s *AgentState) *string { return &s.Goal })
	fieldConstraints = state.Value("constraints", func(s *AgentState) *[]string { return &s.Constraints })
	fieldPlan        = state.Value("plan", func(s *AgentState) *plan.Plan { return &s.Plan })
	fieldPastSteps   = state.Append("past_steps", func(s *AgentState) *[]StepOutcome { return &s.PastSteps })
	fieldApplied     = state.Value("applied", func(s *AgentState) *int { return &s.Applied })
	fieldUsage       = state.Reduce("usage", func(s *AgentState) *Usage { return &s.Usage }, Usage.Add)
	fieldAudit       = state.Append("audit", func(s *AgentState) *[]AuditRecord { return (*[]AuditRecord)(&s.Audit) })
	fieldDecisions   = state.Append("decisions", func(s *AgentState) *[]Decision { return &s.Decisions })
	fieldStop        = state.Value("stop", func(s *AgentState) **StopReason { return &s.Stop })
	fieldBlocked     = state.Value("blocked", func(s *AgentState) *string { return &s.Blocked })
	fieldResponse    = state.Value("response", func(s *AgentState) *Response { return &s.Response })
	fieldCurrent     = state.Value("current", func(s *AgentState) *string { return &s.Current })
)

// agentSchema is the schema of AgentState.
var agentSchema = state.NewSchema(
	fieldGoal, fieldConstraints, fieldPlan, fieldPastSteps, fieldApplied, fieldUsage,
	fieldAudit, fieldDecisions, fieldStop, fieldBlocked, fieldResponse, fieldCurrent,
)

// NewInput is the input of a run: the goal and the user's constraints. It
// also clears what an earlier run on the same thread left (plan, past steps,
// usage, audit, decisions, stop, response), so a thread can ask one question
// after another and every run starts with fresh budgets.
func NewInput(goal string, constraints ...string) state.Update[AgentState] {
	return state.Writes(
		fieldGoal.Set(goal),
		fieldConstraints.Set(constraints),
		fieldPlan.Set(plan.Plan{}),
		fieldPastSteps.Overwrite(nil),
		fieldApplied.Set(0),
		fieldUsage.Overwrite(Usage{}),
		fieldAudit.Overwrite(nil),
		fieldDecisions.Overwrite(nil),
		fieldStop.Set(nil),
		fieldBlocked.Set(""),
		fieldResponse.Set(Response{}),
	)
}
