package nodes_test

import (
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// modelDeliveryConfig is the delivery agent with a model planner, a model
// partial replanner and a model responder, all on m.
func modelDeliveryConfig(c *delivery.Case, m *scriptedModel) nodes.AgentConfig {
	cfg := c.AgentConfig()
	cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
	cfg.Replanner = nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}}
	cfg.Responder = nodes.LLMResponder{Model: m}
	return cfg
}

func deliveryModel() *scriptedModel {
	return &scriptedModel{replies: []string{deliveryPlanReply, deliveryReplanReply, deliveryAnswerReply}}
}

type toolCounts struct{ order, stock, quote int }

func countsOf(c *delivery.Case) toolCounts {
	return toolCounts{c.Calls(delivery.ToolOrderLookup), c.Calls(delivery.ToolStockCheck), c.Calls(delivery.ToolShippingQuote)}
}

func TestAgentResumesAfterReplanWithoutRedoingWork(t *testing.T) {
	t.Parallel()
	c, m := delivery.New(), deliveryModel()
	app := compileAgent(t, modelDeliveryConfig(c, m), []graph.CompileOption{graph.WithCheckpointer(memory.New())}, nodes.WithRoundByRound())
	ctx := t.Context()
	thread := graph.WithThread("o1001")

	// Stop right after every replan; resume each time with a zero input.
	type pause struct {
		modelCalls int
		tools      toolCounts
		next       []string
	}
	var pauses []pause
	out, err := app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), thread, graph.InterruptAfter(nodes.NodeReplan))
	for errors.Is(err, graph.ErrInterrupted) {
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, nodes.NodeReplan, ie.Interrupts[0].Node)
		require.Equal(t, "after", ie.Interrupts[0].When)
		snap, serr := app.State(ctx, thread)
		require.NoError(t, serr)
		pauses = append(pauses, pause{m.calls(), countsOf(c), snap.Next})
		require.Equal(t, m.calls(), snap.Values.Usage.ModelCalls, "usage is checkpointed")
		out, err = app.Invoke(ctx, state.Update[nodes.AgentState]{}, thread, graph.InterruptAfter(nodes.NodeReplan))
	}
	require.NoError(t, err)

	require.Equal(t, []pause{
		{1, toolCounts{1, 0, 0}, []string{nodes.NodeExecute}},                                       // order looked up
		{2, toolCounts{1, 1, 0}, []string{nodes.NodeExecute, nodes.NodeExecute, nodes.NodeExecute}}, // A blocked: revised by the model
		{2, toolCounts{1, 2, 2}, []string{nodes.NodeExecute}},                                       // B evaluated
		{2, toolCounts{1, 2, 2}, []string{nodes.NodeRespond}},                                       // finished
	}, pauses)
	// Resuming never asked the model again for the plan or the revision and
	// never re-ran a finished tool call: one call each, as without pauses.
	require.Equal(t, 3, m.calls())
	require.Equal(t, toolCounts{1, 2, 2}, countsOf(c))
	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.Equal(t, 3, out.Usage.ModelCalls)
	require.Equal(t, 5, out.Usage.ToolCalls)
	require.Len(t, out.Audit, 5)
	require.Len(t, out.PastSteps, 6)
}

func TestAgentResumesAfterCrashRightAfterReplan(t *testing.T) {
	t.Parallel()
	c, m := delivery.New(), deliveryModel()
	app := compileAgent(t, modelDeliveryConfig(c, m), []graph.CompileOption{graph.WithCheckpointer(memory.New())}, nodes.WithRoundByRound())
	ctx := t.Context()
	thread := graph.WithThread("crash")

	// Kill the run once the revising replan's step is checkpointed. (Not at
	// the replan's task result event: the runtime does not save the writes
	// of a step's only task on their own, so a run stopped between that
	// event and the step's checkpoint runs the node again on resume.)
	replans := 0
	for ev, err := range app.Stream(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), thread, graph.StreamModes(graph.Tasks, graph.Checkpoints)) {
		require.NoError(t, err)
		if ev.Mode == graph.Tasks && ev.Node == nodes.NodeReplan && ev.Task.Result {
			replans++
		}
		if ev.Mode == graph.Checkpoints && replans == 2 {
			break
		}
	}
	require.Equal(t, 2, m.calls(), "the planner and the revision")
	require.Equal(t, toolCounts{1, 1, 0}, countsOf(c))
	snap, err := app.State(ctx, thread)
	require.NoError(t, err)
	require.Equal(t, []string{nodes.NodeExecute, nodes.NodeExecute, nodes.NodeExecute}, snap.Next)
	require.Equal(t, 1, snap.Values.Usage.Replans)

	out, err := app.Invoke(ctx, state.Update[nodes.AgentState]{}, thread)
	require.NoError(t, err)
	require.Equal(t, 3, m.calls(), "only the responder was asked after the resume")
	require.Equal(t, toolCounts{1, 2, 2}, countsOf(c))
	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.Equal(t, 1, out.Usage.Replans)
}

func TestAgentNewQuestionOnSameThreadStartsFresh(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	app := compileAgent(t, c.AgentConfig(), []graph.CompileOption{graph.WithCheckpointer(memory.New())})
	thread := graph.WithThread("twice")
	first, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), thread)
	require.NoError(t, err)
	second, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), thread)
	require.NoError(t, err)
	require.Equal(t, first.Answer(), second.Answer())
	require.Len(t, second.PastSteps, 6)
	require.Len(t, second.Audit, 5)
	require.Equal(t, 5, second.Usage.ToolCalls, "budgets start again")
	require.Equal(t, 1, second.Usage.Replans)
}
