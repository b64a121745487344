package nodes_test

import (
	"context"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// hangingTools are a tool that never answers until its call is cancelled
// ("slow") and one that answers at once ("fast").
func hangingTools() []tools.Tool {
	return []tools.Tool{
		tool.Func{ToolName: "slow", ToolDescription: "never answers", Fn: func(ctx context.Context, _ string) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}},
		tool.Func{ToolName: "fast", ToolDescription: "answers", Fn: func(context.Context, string) (string, error) { return `{"ok":true}`, nil }},
	}
}

// onePlan plans the steps, whatever the goal.
func onePlan(steps ...plan.Step) plannerFunc {
	return func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
		return plan.Plan{Goal: req.Goal, Steps: steps}, nodes.PlanInfo{}, nil
	}
}

func TestATimeoutFailsTheStepForTheReplannerNotTheRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  nodes.AgentOption
	}{
		{"tool timeout", nodes.WithToolTimeout(100*time.Millisecond, "slow")},
		{"step timeout", nodes.WithStepTimeout(100 * time.Millisecond)},
		{"graph timeout on the execute node", nodes.WithNodeOptions(nodes.NodeExecute, graph.WithTimeout(time.Second))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var seen []nodes.Trigger
			replanner := replannerFunc(func(_ context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
				seen = append(seen, req.Trigger)
				p := req.Plan.Clone()
				p.Steps[0] = st("evidence", "fast", `{}`)
				return p, nodes.ReplanInfo{Strategy: "fallback"}, nil
			})
			app := compileAgent(t, nodes.AgentConfig{
				Planner: onePlan(st("evidence", "slow", `{}`), st("answer", "", "", "evidence")), Tools: hangingTools(),
				Replanner: replanner,
			}, nil, tt.opt)
			out, err := app.Invoke(t.Context(), nodes.NewInput("gather the evidence"))
			require.NoError(t, err, "the run goes on")
			first := out.PastSteps[0]
			require.Equal(t, plan.StatusFailed, first.Status)
			require.Equal(t, plan.ErrKindTimeout, first.ErrKind)
			require.Contains(t, first.Err, "timed out")
			require.Len(t, seen, 1)
			require.Equal(t, plan.ErrKindTimeout, seen[0].ErrKind, "the replanner saw the timed-out step")
			require.Equal(t, nodes.ActionRevise, out.Decisions[0].Action)
			require.True(t, out.Done())
			require.Equal(t, plan.StatusCompleted, out.Plan.Steps[0].Status, "the fallback ran")
		})
	}
}

func TestAgentMaxWallCutsOffAHangingToolCall(t *testing.T) {
	t.Parallel()
	app := compileAgent(t, nodes.AgentConfig{
		Planner: onePlan(st("evidence", "slow", `{}`), st("answer", "", "", "evidence")), Tools: hangingTools(),
		Budget: nodes.Budget{MaxWall: 200 * time.Millisecond},
	}, nil)
	start := time.Now()
	out, err := app.Invoke(t.Context(), nodes.NewInput("gather the evidence"))
	require.NoError(t, err)
	require.Less(t, time.Since(start), 10*time.Second)
	require.NotNil(t, out.Stop)
	require.Equal(t, nodes.BudgetWall, out.Stop.Budget)
	require.Contains(t, out.PastSteps[0].Err, "stopped by budget max_wall", "the call was cut off at the deadline")
	require.Contains(t, out.Answer(), "max_wall")
}

func TestCtrlCDuringAModelCallLeavesTheThreadPendingAndAResumeFinishesIt(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Hang: true, Once: true},
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	saver := memory.New()
	c := delivery.New()
	agent, err := nodes.NewAgent(nodes.AgentConfig{
		Model: openaiModel(t, srv), Tools: c.Tools(), Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(c.Tools())},
		Budget: nodes.Budget{MaxModelCalls: 10},
	})
	require.NoError(t, err)
	app, err := agent.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(srv.Requests()) == 0 {
			time.Sleep(time.Millisecond) // polling the fake server for the planner's call
		}
		cancel() // Ctrl-C
	}()
	_, err = app.Invoke(ctx, nodes.InputFor(c.Request()), graph.WithThread("ctrl-c"))
	require.ErrorIs(t, err, context.Canceled)

	snap, err := app.State(t.Context(), graph.WithThread("ctrl-c"))
	require.NoError(t, err)
	require.Equal(t, []string{nodes.NodePlanner}, snap.Next, "the planner is pending")
	for _, task := range snap.Tasks {
		require.Empty(t, task.Error, "no failure is recorded for the cancelled call")
	}

	out, err := app.Invoke(t.Context(), state.Update[nodes.AgentState]{}, graph.WithThread("ctrl-c"))
	require.NoError(t, err)
	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.Len(t, srv.Requests(), 4, "the cut-off call, then planner, replanner, responder")
	require.Equal(t, 3, out.Usage.ModelCalls, "the resumed run counts its own calls")
}
