package nodes

import "github.com/stategraph/stategraph/nodes/plan"

// This file exports internals to the tests, which are an external package
// (nodes_test) so that they can run the delivery scenario of
// internal/delivery, a package that imports nodes.

// The replan node's building blocks, tested on their own.
type (
	RoundInput = roundInput
	CallNeeds  = callNeeds
)

var (
	ApplyOutcomes = applyOutcomes
	CheckRevision = checkRevision
	Decide        = decide
	OnlyRepeated  = onlyRepeated
	Progressed    = progressed
	ReplanRound   = replanRound
	ToolCalls     = toolCalls
)

var (
	DefaultOutputCap = defaultOutputCap
	WithModelCalls   = withModelCalls
	WithWallDeadline = withWallDeadline
	Generate         = generate
	CannotRevise     = cannotRevise
	NormalizeNew     = normalizeNew
	RunningTime      = runningTime
	ToolCallsLeft    = toolCallsLeft
	ModelCallsLeft   = modelCallsLeft
)

// NewRoundAgent is an agent with only a configuration and, when react is
// set, ReAct steps chosen by reactFor: enough for the rules of a round.
func NewRoundAgent(cfg AgentConfig, react *ReActExecutor, reactFor func(plan.Step) bool) *Agent {
	return &Agent{cfg: cfg, react: react, reactFor: reactFor}
}

func (a *Agent) StartRound(p plan.Plan, u Usage) (plan.Plan, int) { return a.startRound(p, u) }
func (a *Agent) CallsTools(s plan.Step) bool                      { return a.callsTools(s) }
func (a *Agent) RunsReAct(s plan.Step) bool                       { return a.runsReAct(s) }
func (a *Agent) ToolShare(p plan.Plan, u Usage, id string) int    { return a.toolShare(p, u, id) }
func (a *Agent) ModelShare(p plan.Plan, u Usage, id string) int   { return a.modelShare(p, u, id) }

// SetByModelShare says r's MaxModelCalls is its step's share of the
// agent's model-call budget, as the agent sets it.
func (r *ReActExecutor) SetByModelShare(v bool) { r.byModelShare = v }

// Left is what is left of the allowance.
func (a *allowance) Left() int64 { return a.left.Load() }
