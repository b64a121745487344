package telemetry_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/agenttrace"
)

// deliveryAgent is the offline delivery agent, traced by tr.
func deliveryAgent(t *testing.T, tr *traced) (*graph.Compiled[nodes.AgentState], *delivery.Case) {
	t.Helper()
	c := delivery.New()
	agent, err := nodes.NewAgent(agenttrace.Instrument(tr.Telemetry, c.AgentConfig()), nodes.WithRoundByRound())
	require.NoError(t, err)
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()), graph.WithObserver(tr), graph.WithName("delivery"))
	require.NoError(t, err)
	return app, c
}

func TestDeliveryAgentSpanTree(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	app, c := deliveryAgent(t, tr)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001"))
	require.NoError(t, err)
	require.Contains(t, out.Answer(), "B")

	tree := tr.tree()
	assert.Equal(t, []string{
		"run delivery",
		"run delivery > checkpoint input",
		"run delivery > checkpoint loop",
		"run delivery > step",
		"run delivery > step > checkpoint loop",
		"run delivery > step > task execute",
		"run delivery > step > task execute > execute_tool order_lookup",
		"run delivery > step > task execute > execute_tool shipping_quote",
		"run delivery > step > task execute > execute_tool stock_check",
		"run delivery > step > task planner",
		"run delivery > step > task replan",
		"run delivery > step > task respond",
	}, tree.paths())
	assert.Empty(t, tree.named("execute_tool change_order"), "a query-only run changes nothing")

	// Steps run in order: planner, then rounds of execute and replan, then respond.
	var order []string
	for _, s := range tree.named("step") {
		nodes, _ := attr(s, telemetry.KeyStepNodes)
		order = append(order, strings.Join(nodes.AsStringSlice(), ","))
	}
	assert.Equal(t, []string{"planner", "execute", "replan", "execute", "replan", "execute,execute,execute", "replan", "execute", "replan", "respond"}, order,
		"independent plan steps run as parallel tasks of one step")

	// Each tool span sits under the execute task that called it, and its
	// step's task span names the node.
	for _, s := range tree.spans {
		if strings.HasPrefix(s.Name, "execute_tool ") {
			p := tree.parent(&s)
			require.NotNil(t, p)
			node, _ := attr(p, telemetry.KeyNode)
			assert.Equal(t, "execute", node.AsString())
		}
	}

	// The replan that turns to warehouse B is an event of a replan task.
	var replans []string
	for _, s := range tree.named("task replan") {
		for _, e := range s.Events {
			if e.Name == agenttrace.EventReplan {
				replans = append(replans, attrOf(e.Attributes, agenttrace.KeyTrigger).AsString()+":"+attrOf(e.Attributes, agenttrace.KeyStrategy).AsString())
				assert.NotEmpty(t, attrOf(e.Attributes, agenttrace.KeyTriggerStep).AsString())
				assert.Contains(t, attrOf(e.Attributes, agenttrace.KeyReason).AsString(), "warehouse A has no stock")
			}
		}
	}
	require.Len(t, replans, 1)
	assert.Equal(t, "blocked:adaptive:partial:template", replans[0], "stock_a showed the route blocked; the partial replan evaluates warehouse B")

	run := tree.one(t, "run delivery")
	for i := range tree.spans {
		assert.Equal(t, run.SpanContext.TraceID(), tree.spans[i].SpanContext.TraceID())
	}
	ms := tr.collect(t)
	assert.Equal(t, int64(len(tree.named("execute_tool stock_check"))), sum(ms[telemetry.MetricToolCalls], attrKV("gen_ai.tool.name", "stock_check")))
}

func TestDeliveryAgentInterruptedBeforeRespondThenResumedIsLinked(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	app, c := deliveryAgent(t, tr)
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001"), graph.InterruptBefore(nodes.NodeRespond))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	first := tr.tree().one(t, "run delivery")
	require.Equal(t, []string{telemetry.EventInterrupt}, events(first))
	assert.Equal(t, nodes.NodeRespond, attrOf(first.Events[0].Attributes, telemetry.KeyNode).AsString())
	out, _ := attr(first, telemetry.KeyOutcome)
	assert.Equal(t, telemetry.OutcomeInterrupted, out.AsString())

	tr.spans.Reset()
	_, err = app.Invoke(t.Context(), state.Update[nodes.AgentState]{}, graph.WithThread("o1001"))
	require.NoError(t, err)
	tree := tr.tree()
	second := tree.one(t, "run delivery")
	require.Len(t, second.Links, 1)
	assert.Equal(t, first.SpanContext.SpanID(), second.Links[0].SpanContext.SpanID())
	assert.Equal(t, []string{
		"run delivery",
		"run delivery > step",
		"run delivery > step > checkpoint loop",
		"run delivery > step > task respond",
	}, tree.paths(), "the resumed run runs only respond")
}
