package nodes_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// testTools returns tools with the given names, each answering "name:input".
func testTools(names ...string) []tools.Tool {
	ts := make([]tools.Tool, len(names))
	for i, n := range names {
		ts[i] = tool.Func{ToolName: n, ToolDescription: "the " + n + " tool", Fn: func(_ context.Context, in string) (string, error) { return n + ":" + in, nil }}
	}
	return ts
}

// st is a plan step "do id" calling tool with input (JSON, "" for none).
func st(id, tool string, input string, deps ...string) plan.Step {
	s := plan.Step{ID: id, Description: "do " + id, Tool: tool, DependsOn: deps}
	if input != "" {
		s.Input = json.RawMessage(input)
	}
	return s
}

// deliveryPlan is the delivery template's plan, built for the case.
func deliveryPlan(t *testing.T, c *delivery.Case) plan.Plan {
	t.Helper()
	p, err := c.Template().Build(c.Request())
	require.NoError(t, err)
	return nodes.NormalizeNew(p, c.Request())
}

// replannerFunc adapts a function to nodes.Replanner.
type replannerFunc func(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error)

func (f replannerFunc) Replan(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
	return f(ctx, req)
}

// stepIDs lists the ids of p's steps, in order.
func stepIDs(p plan.Plan) []string {
	var ids []string
	for _, s := range p.Steps {
		ids = append(ids, s.ID)
	}
	return ids
}

// outcomeOf returns the outcome of step id among outs.
func outcomeOf(t *testing.T, outs []nodes.StepOutcome, id string) nodes.StepOutcome {
	t.Helper()
	for _, o := range outs {
		if o.StepID == id {
			return o
		}
	}
	t.Fatalf("no outcome for %q", id)
	return nodes.StepOutcome{}
}
