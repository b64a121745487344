package nodes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/eval"
	"github.com/stretchr/testify/require"
)

func TestEval(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	cases := []eval.Case{{
		Name: "o1001", Goal: c.Goal(), Constraints: c.Constraints(),
		Check: func(s nodes.AgentState) error {
			if !strings.Contains(s.Answer(), "switch to warehouse B, standard shipping") {
				return errors.New("no recommendation of B standard")
			}
			return nil
		},
	}, {
		Name: "o1001 complete", Goal: c.Goal(), Constraints: c.Constraints(), // no check: a complete response
	}, {
		Name: "wrong check", Goal: c.Goal(),
		Check: func(nodes.AgentState) error { return errors.New("expected warehouse C") },
	}, {
		Name: "no template", Goal: "What is the weather?",
	}}
	for _, tc := range []struct {
		name  string
		copts []graph.CompileOption
	}{{"without a checkpointer", nil}, {"with a checkpointer", []graph.CompileOption{graph.WithCheckpointer(memory.New())}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			app := compileAgent(t, delivery.New().AgentConfig(), tc.copts)
			rep, err := eval.Run(t.Context(), app, cases)
			require.NoError(t, err)
			require.Len(t, rep.Results, 4)
			ok := []bool{rep.Results[0].OK, rep.Results[1].OK, rep.Results[2].OK, rep.Results[3].OK}
			require.Equal(t, []bool{true, true, false, false}, ok)
			require.Equal(t, "expected warehouse C", rep.Results[2].Error)
			require.Contains(t, rep.Results[3].Error, "no plan template matches the goal")
			require.InDelta(t, 0.5, rep.SuccessRate, 1e-9)
			r0 := rep.Results[0]
			require.Equal(t, eval.Result{Name: "o1001", OK: true, Duration: r0.Duration, Steps: 6, Replans: 1, ToolCalls: 5, Answer: r0.Answer}, r0)
			require.InDelta(t, 4.5, rep.MeanSteps, 1e-9) // 6, 6, 6, 0
			require.InDelta(t, 0.75, rep.MeanReplans, 1e-9)
			require.InDelta(t, 3.75, rep.MeanToolCalls, 1e-9)
			require.Positive(t, rep.MeanTime)
			require.Contains(t, rep.String(), "success 50%")
		})
	}
}

func TestEvalCountsModelCallsAndTokens(t *testing.T) {
	t.Parallel()
	c, m := delivery.New(), deliveryModel()
	app := compileAgent(t, modelDeliveryConfig(c, m), nil)
	rep, err := eval.Run(t.Context(), app, []eval.Case{{Name: "o1001", Goal: c.Goal(), Constraints: c.Constraints()}})
	require.NoError(t, err)
	require.Equal(t, 1.0, rep.SuccessRate)
	require.Equal(t, 3, rep.Results[0].ModelCalls)
	require.Equal(t, nodes.Tokens{Prompt: 300, Completion: 60, Total: 360}, rep.Tokens)
	require.InDelta(t, 3, rep.MeanModelCalls, 1e-9)
}
