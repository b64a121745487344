package nodes

import (
	"context"
	"errors"

	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// WithLedger runs every call a plan step makes of a tool with side
// effects (its SideEffects reports true, see plan.SideEffecter: nodes/tool's
// Mutates, an MCP tool without readOnlyHint) through the effect ledger
// (effect.Do), keyed by the execute task and by the step's id. A call
// that started and never ended (a crash, a failed end record, an error of
// the tool) is in doubt: it is not a failed step the replanner would
// retry with a new call, but fails the execute task; resumed, the task
// asks the tool's reconcile hook (effect.Reconciler) or stops at an
// effect.in_doubt interrupt for a person, answered with
// graph.Resume(effect.Decision{...}). Tools without side effects run as
// before, and a tool already made with effect.Wrap is not wrapped again.
// The steps a ReActExecutor runs (WithReAct) call their tools as before.
// The graph must be compiled WithCheckpointer (see effect.Do).
func WithLedger() AgentOption { return func(o *agentOptions) { o.effects = true } }

// ledgerTools returns ts with each tool that has side effects wrapped in
// the effect ledger.
func ledgerTools(ts []tools.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if _, ok := t.(*effect.Tool); ok {
			continue
		}
		if se, ok := t.(plan.SideEffecter); ok && se.SideEffects() {
			out[i] = effect.Wrap(t)
		}
	}
	return out
}

// stopsTheTask says whether err, a tool call's error, must fail the task
// instead of the step: a ledger call in doubt, or an interrupt (a ledger
// call asking a person about it). Made a failed step, the replanner would
// call the tool again under a new key.
func stopsTheTask(err error) bool {
	return errors.Is(err, effect.ErrInDoubt) || errors.Is(err, graph.ErrInterrupted)
}

// ledgerContext returns ctx for the tool calls of the step with id: a
// ledger call is keyed by it as well as by the task, so two steps of an
// eager round (one task) calling one tool with one input are two effects.
func ledgerContext(ctx context.Context, id string) context.Context {
	return effect.WithCallID(ctx, "step/"+id)
}
