package nodes

import (
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/plan"
)

// AgentOption adjusts an agent being built.
type AgentOption func(*agentOptions)

type agentOptions struct {
	now          func() time.Time
	react        *ReActExecutor
	reactFor     func(plan.Step) bool
	nodeOpts     map[string][]graph.NodeOption
	retry        ModelRetry
	stream       bool
	toolTimeouts map[string]time.Duration
	stepTimeout  time.Duration
	rounds       bool // WithRoundByRound
	outputCap    int  // WithOutputCap
	parallel     int
	effects      bool // WithLedger
}

// WithClock sets the clock for wall-time budgets and audit records (default
// time.Now).
func WithClock(now func() time.Time) AgentOption { return func(o *agentOptions) { o.now = now } }

// WithReAct runs some steps with r's inner ReAct loop instead of a single
// tool call: by default the steps that have no tool and no dependencies (a
// task described in words, which cannot be a synthesis step); select decides
// instead when it is not nil. r.Tools defaults to the agent's tools,
// r.MaxToolCalls to Budget.MaxToolCallsPerStep and r.Checker to the agent's
// Checker; the agent's Guards are added to r.Guards, so a ReAct step cannot
// call a tool a guard refuses (plan.ReadOnlyGuard: no tool with side effects).
// In a round, each ReAct step makes at most its share of the model calls
// and tool calls left (see Budget).
func WithReAct(r *ReActExecutor, selectStep func(plan.Step) bool) AgentOption {
	return func(o *agentOptions) { o.react, o.reactFor = r, selectStep }
}

// WithNodeOptions adds graph node options (retry policy, timeout) to one of
// the agent's nodes.
func WithNodeOptions(node string, opts ...graph.NodeOption) AgentOption {
	return func(o *agentOptions) {
		if o.nodeOpts == nil {
			o.nodeOpts = map[string][]graph.NodeOption{}
		}
		o.nodeOpts[node] = append(o.nodeOpts[node], opts...)
	}
}
