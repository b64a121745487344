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
	"github.com/tmc/langchaingo/llms"
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
	_, err = app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("ctrl-c"))
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

// After the run's deadline (Budget.MaxWall, on an injected clock) has
// passed, no model call is made: the responder does not ask the model —
// the fake server sees the planner's call only, no call is counted and no
// token sent — and the answer, composed from what ran, names the stop and
// the steps not done.
func TestNoModelCallAfterTheDeadline(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	ts := []tools.Tool{
		tool.Func{ToolName: "slow", ToolDescription: "takes two minutes", Fn: func(context.Context, string) (string, error) {
			clock.advance(2 * time.Minute)
			return `{"rows":3}`, nil
		}},
		tool.Func{ToolName: "fast", ToolDescription: "answers", Fn: func(context.Context, string) (string, error) { return `{"ok":true}`, nil }},
	}
	srv := fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Reply: `{"steps":[
			{"id":"fetch","description":"Fetch the rows","tool":"slow","input":{},"depends_on":[]},
			{"id":"check","description":"Check the rows","tool":"fast","input":{"rows":"{{fetch.result.rows}}"},"depends_on":["fetch"]},
			{"id":"answer","description":"Answer","tool":"","input":{},"depends_on":["check"]}]}`},
		fakechat.Rule{Marker: "", Reply: "a model answer"},
	)
	for _, mode := range []struct {
		name string
		opts []nodes.AgentOption
	}{{"eager", nil}, {"rounds", []nodes.AgentOption{nodes.WithRoundByRound()}}} {
		t.Run(mode.name, func(t *testing.T) {
			before := len(srv.Requests())
			app := compileAgent(t, nodes.AgentConfig{Model: openaiModel(t, srv), Tools: ts, Budget: nodes.Budget{MaxWall: time.Minute}}, nil,
				append(mode.opts, nodes.WithClock(clock.now))...)
			out, err := app.Invoke(t.Context(), nodes.NewInput("fetch and check the rows"))
			require.NoError(t, err)
			require.Len(t, srv.Requests(), before+1, "the planner's call only: none after the deadline")
			require.Equal(t, 1, out.Usage.ModelCalls)
			require.Equal(t, 120, out.Usage.TotalTokens, "the planner's tokens only (the fake reports 100 + 20 a call)")
			require.NotNil(t, out.Stop)
			require.Equal(t, nodes.BudgetWall, out.Stop.Budget)
			require.False(t, out.Response.Complete)
			require.NotContains(t, out.Answer(), "a model answer")
			require.Contains(t, out.Answer(), "stopped by budget max_wall")
			require.Contains(t, out.Answer(), `{"rows":3}`, "what ran")
			require.Contains(t, out.Answer(), "check: Check the rows (pending)", "what is missing")
		})
	}
}

// A model call whose context carries a deadline that has passed on the
// agent's clock is not made, however the caller reached it.
func TestAModelCallAfterTheDeadlineIsNotMade(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t, fakechat.Rule{Reply: "hello"})
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	now := clock.now()
	ctx := nodes.WithWallDeadline(t.Context(), now.Add(time.Minute), time.Minute, now, clock.now)
	clock.advance(time.Minute)
	for _, m := range []llms.Model{openaiModel(t, srv), &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{}}} {
		text, calls, _, err := nodes.Generate(ctx, m, "hi")
		require.ErrorContains(t, err, "stopped by budget max_wall: used 1m0s of 1m0s")
		require.Zero(t, calls)
		require.Empty(t, text)
	}
	require.Empty(t, srv.Requests())
}
