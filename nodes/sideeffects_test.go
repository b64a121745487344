package nodes_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/faultsaver"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
)

// fixedPlanner always plans p.
type fixedPlanner struct{ p plan.Plan }

func (f fixedPlanner) Plan(context.Context, nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
	return f.p.Clone(), nodes.PlanInfo{Source: "fixed"}, nil
}

type billArgs struct {
	Amount string `json:"amount"`
}

// WithLedger: the payment tool (Mutates) charges, and the run dies before
// the ledger records the call's end. The step does not fail (the
// replanner would call the tool again); the task does. The resume asks a
// person about the call without charging again, and Confirm finishes the
// plan with the confirmed result. The read-only tool is not in the ledger.
// In both round modes: an eager round runs both steps in one task.
func TestTheAgentsLedgerStopsAtACallInDoubt(t *testing.T) {
	t.Parallel()
	for name, mode := range map[string]nodes.AgentOption{"eager": nodes.WithEagerSteps(0), "round by round": nodes.WithRoundByRound()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			saver := &faultsaver.Saver{Saver: memory.New()}
			var charges, looks atomic.Int32
			pay := tool.New("pay_bill", "pays the bill", func(ctx context.Context, a billArgs) (string, error) {
				charges.Add(1)
				if _, ok := effect.Key(ctx); !ok {
					return "", errors.New("no ledger key")
				}
				saver.Arm() // the effect took place; its end record fails
				return "charged " + a.Amount, nil
			})
			pay.Mutates = true
			look := tool.New("balance", "the balance due", func(context.Context, struct{}) (string, error) {
				looks.Add(1)
				return "balance: 10 EUR", nil
			})
			p := plan.Plan{Goal: "pay my bill", Steps: []plan.Step{
				st("s1", "balance", `{}`),
				st("s2", "pay_bill", `{"amount":"10 EUR"}`, "s1"),
			}}
			cfg := nodes.AgentConfig{Planner: fixedPlanner{p}, Tools: []tools.Tool{pay, look}}
			app := compileAgent(t, cfg, []graph.CompileOption{graph.WithCheckpointer(saver)}, mode, nodes.WithLedger())
			thread := graph.WithThread("bill")

			_, err := app.Invoke(t.Context(), nodes.NewInput("pay my bill"), thread)
			require.ErrorIs(t, err, effect.ErrInDoubt, "the task fails, not the step")
			require.ErrorContains(t, err, "the process died")
			require.EqualValues(t, 1, charges.Load())

			resume := state.Update[nodes.AgentState]{}
			_, err = app.Invoke(t.Context(), resume, thread)
			var ie *graph.InterruptError
			require.ErrorAs(t, err, &ie)
			require.Len(t, ie.Interrupts, 1)
			doubt, perr := graph.Payload[effect.InDoubt](ie.Interrupts[0])
			require.NoError(t, perr)
			require.Equal(t, effect.InDoubtKind, doubt.Kind)
			require.Equal(t, "pay_bill", doubt.Call.Tool)
			require.Equal(t, "step/s2", doubt.Call.CallID)
			require.JSONEq(t, `{"amount":"10 EUR"}`, doubt.Call.Input)
			require.EqualValues(t, 1, charges.Load(), "not charged again")

			out, err := app.Invoke(t.Context(), resume, thread, graph.Resume(effect.Decision{Action: effect.Confirm, Result: "charged 10 EUR (confirmed)"}))
			require.NoError(t, err)
			require.EqualValues(t, 1, charges.Load())
			require.EqualValues(t, 1, looks.Load())
			paid := outcomeOf(t, out.PastSteps, "s2")
			require.Equal(t, plan.StatusCompleted, paid.Status)
			require.Equal(t, "charged 10 EUR (confirmed)", paid.Output)
			for _, o := range out.PastSteps {
				require.NotEqual(t, plan.StatusFailed, o.Status, "no step failed: %+v", o)
			}
			require.Equal(t, 0, out.Usage.Replans, "nothing to replan")
		})
	}
}
