package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// plannerFunc is a Planner from a function.
type plannerFunc func(ctx context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error)

func (f plannerFunc) Plan(ctx context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
	return f(ctx, req)
}

// retryReplanner revises a plan by resetting its failed steps to pending:
// a replan that never makes progress.
type retryReplanner struct{}

func (retryReplanner) Replan(_ context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
	p := req.Plan.Clone()
	for i := range p.Steps {
		if p.Steps[i].Status == plan.StatusFailed {
			p.Steps[i].Status, p.Steps[i].Error = plan.StatusPending, ""
		}
	}
	return p, nodes.ReplanInfo{Strategy: "retry"}, nil
}

// flakyConfig is an agent whose only tool always fails.
func flakyConfig() nodes.AgentConfig {
	ts := []tools.Tool{tool.Func{ToolName: "flaky", ToolDescription: "always fails",
		Fn: func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }}}
	return nodes.AgentConfig{
		Tools: ts,
		Planner: plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
			return plan.Plan{Goal: req.Goal, Steps: []plan.Step{
				{ID: "fetch", Description: "fetch the data", Tool: "flaky", Input: json.RawMessage(`{}`)},
				{ID: "answer", Description: "answer", DependsOn: []string{"fetch"}},
			}}, nodes.PlanInfo{Source: "test"}, nil
		}),
		Replanner: retryReplanner{},
	}
}

// tickClock is a clock that advances a minute at every reading.
type tickClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *tickClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Minute)
	return c.t
}

func TestAgentBudgetsStopTheRunAndSayWhy(t *testing.T) {
	t.Parallel()
	type run struct {
		cfg   nodes.AgentConfig
		opts  []nodes.AgentOption
		model *scriptedModel
		case_ *delivery.Case
	}
	tests := []struct {
		name   string
		setup  func() run
		budget string
		used   string
		extra  func(t *testing.T, r run, out nodes.AgentState)
	}{{
		name: "tool calls in total",
		setup: func() run {
			c := delivery.New()
			cfg := c.AgentConfig()
			cfg.Budget = nodes.Budget{MaxToolCalls: 3}
			return run{cfg: cfg, case_: c}
		},
		// Two calls (order, stock_a), then the revision makes three steps
		// ready at once: only one call is left, so only the first in plan
		// order runs, and the run stops at the budget, not past it.
		budget: nodes.BudgetToolCalls, used: "used 3 of 3",
		extra: func(t *testing.T, r run, out nodes.AgentState) {
			require.Len(t, out.Audit, 3)
			require.Equal(t, "b_stock", out.Audit[2].StepID)
			require.Zero(t, r.case_.Calls(delivery.ToolShippingQuote))
			require.Contains(t, out.Answer(), "Not done: b_express")
			require.Contains(t, out.Answer(), "Not done: recommend")
			require.Contains(t, out.Answer(), "Nothing was changed")
		},
	}, {
		name: "model calls, and the model responder is not called past the budget",
		setup: func() run {
			c := delivery.New()
			m := &scriptedModel{replies: []string{deliveryPlanReply, "never used"}}
			cfg := c.AgentConfig()
			cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
			cfg.Responder = nodes.LLMResponder{Model: m}
			cfg.Budget = nodes.Budget{MaxModelCalls: 1}
			return run{cfg: cfg, model: m, case_: c}
		},
		budget: nodes.BudgetModelCalls, used: "used 1 of 1",
		extra: func(t *testing.T, r run, out nodes.AgentState) {
			require.Equal(t, 1, r.model.calls())
			require.Equal(t, 1, out.Usage.ModelCalls)
			require.Contains(t, out.Answer(), "Stopped early: nodes: stopped by budget max_model_calls")
		},
	}, {
		name: "replans",
		setup: func() run {
			cfg := flakyConfig()
			cfg.Budget = nodes.Budget{MaxReplans: 1, MaxRoundsWithoutProgress: -1}
			return run{cfg: cfg}
		},
		budget: nodes.BudgetReplans, used: "used 1 of 1",
		extra: func(t *testing.T, r run, out nodes.AgentState) {
			require.Equal(t, 1, out.Usage.Replans)
			require.Len(t, out.Audit, 2)
			require.Contains(t, out.Answer(), "fetch: fetch the data (failed): service unavailable")
		},
	}, {
		name: "two rounds without progress",
		setup: func() run {
			return run{cfg: flakyConfig()}
		},
		budget: nodes.BudgetRoundsWithoutProgress, used: "used 2 of 2",
		extra: func(t *testing.T, r run, out nodes.AgentState) {
			require.Equal(t, 2, out.Usage.RoundsWithoutProgress)
		},
	}, {
		name: "wall time",
		setup: func() run {
			c := delivery.New()
			cfg := c.AgentConfig()
			cfg.Budget = nodes.Budget{MaxWall: 3 * time.Minute}
			clock := &tickClock{t: c.Now}
			return run{cfg: cfg, case_: c, opts: []nodes.AgentOption{nodes.WithClock(clock.now)}}
		},
		// Every reading of the clock is a minute later: the planner runs
		// 1m (2 readings), the first round 3m (its task's start, the tool
		// call's start and end, its end), and the replan node 1m by its
		// decision. The tool call starts at 2m of running time, inside the
		// 3m budget (with 2m it would be refused: the budget is checked
		// before every call).
		budget: nodes.BudgetWall, used: "used 5m0s of 3m0s",
		extra: func(t *testing.T, r run, out nodes.AgentState) {
			require.Len(t, out.PastSteps, 1, "stopped after the first round")
			require.Zero(t, out.Usage.Start, "the clock is stopped between nodes")
			require.Equal(t, r.case_.Now.Add(4*time.Minute), out.Audit[0].Start)
			require.Equal(t, r.case_.Now.Add(3*time.Minute), out.PastSteps[0].Start)
			require.Equal(t, r.case_.Now.Add(6*time.Minute), out.PastSteps[0].End)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.setup()
			app := compileAgent(t, r.cfg, nil, append(r.opts, nodes.WithRoundByRound())...)
			in := nodes.NewInput("fetch the data")
			if r.case_ != nil {
				in = nodes.NewInput(r.case_.Goal(), r.case_.Constraints()...)
			}
			out, err := app.Invoke(t.Context(), in)
			require.NoError(t, err)
			require.NotNil(t, out.Stop)
			require.Equal(t, tt.budget, out.Stop.Budget)
			require.Contains(t, out.Stop.Error(), tt.used)
			last := out.Decisions[len(out.Decisions)-1]
			require.Equal(t, nodes.ActionStop, last.Action)
			require.False(t, out.Response.Complete)
			require.Contains(t, out.Answer(), out.Stop.Error(), "the stop is named in the answer")
			if r.case_ != nil {
				require.Zero(t, r.case_.Calls(delivery.ToolChangeOrder))
			}
			tt.extra(t, r, out)
		})
	}
}

func TestAgentToolCallsPerStepBoundRetries(t *testing.T) {
	t.Parallel()
	cfg := flakyConfig()
	cfg.Replanner = nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}} // no fix for an outage
	cfg.FailurePolicy = nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 5}
	cfg.Budget = nodes.Budget{MaxToolCallsPerStep: 2}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("fetch"))
	require.NoError(t, err)
	require.Len(t, out.Audit, 2, "1 call and 1 retry, not 6")
	require.Equal(t, 2, out.Audit[1].Attempt)
	require.Contains(t, out.Blocked, `step "fetch" failed (other): service unavailable`)
	require.Contains(t, out.Blocked, "could not revise")
	require.Contains(t, out.Answer(), "Stopped early: "+out.Blocked)
	require.Equal(t, nodes.ActionBlocked, out.Decisions[0].Action)
}

func TestAgentMalformedModelOutput(t *testing.T) {
	t.Parallel()
	unknownTool := `{"steps": [{"id": "s1", "description": "teleport the parcel", "tool": "teleport", "input": {}, "depends_on": []},
		{"id": "s2", "description": "answer", "tool": "", "input": {}, "depends_on": ["s1"]}]}`

	t.Run("planner: not JSON, wrong schema, unknown tool → a clear error", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		m := &scriptedModel{replies: []string{"I cannot help with that.", `{"steps": "none"}`, unknownTool}}
		cfg := c.AgentConfig()
		cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.ErrorIs(t, err, nodes.ErrPlanRejected)
		var ne *graph.NodeError
		require.ErrorAs(t, err, &ne)
		require.Equal(t, nodes.NodePlanner, ne.Node)
		require.Nil(t, ne.Panic)
		require.ErrorContains(t, err, `unknown tool "teleport"`)
		require.Equal(t, 3, m.calls())
		require.Contains(t, m.prompts[1], "no JSON object with \"steps\"", "each attempt is re-asked with the problems")
		require.Contains(t, m.prompts[2], `"steps"`)
	})

	t.Run("planner: not JSON, then a plan → re-asked, and the run finishes", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		m := &scriptedModel{replies: []string{"Sure! First I will look up the order.", deliveryPlanReply}}
		cfg := c.AgentConfig()
		cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.NoError(t, err)
		require.True(t, out.Response.Complete)
		require.Equal(t, 2, out.Usage.ModelCalls)
		require.Equal(t, 240, out.Usage.TotalTokens)
		require.Contains(t, out.Answer(), "Recommendation: switch to warehouse B, standard shipping")
	})

	t.Run("replanner: malformed revisions → blocked, said in the answer", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		m := &scriptedModel{replies: []string{"no idea", `{"steps": [{"id": 1,}]}`, unknownTool}}
		cfg := c.AgentConfig()
		cfg.Replanner = nodes.AdaptiveReplanner{Partial: nodes.PartialReplan{Model: m}}
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.NoError(t, err)
		require.Equal(t, 3, m.calls())
		require.Equal(t, 3, out.Usage.ModelCalls, "failed attempts are counted")
		require.Contains(t, out.Blocked, "could not revise: nodes: plan rejected after 3 attempts")
		require.Contains(t, out.Answer(), "Warehouse A cannot make it")
		require.Contains(t, out.Answer(), "Stopped early: ")
		require.False(t, out.Response.Complete)
	})

	t.Run("unknown tool in a custom planner's plan → refused before anything runs, naming the closest tool", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		cfg := c.AgentConfig()
		tmpl := c.Template()
		cfg.Planner = plannerFunc(func(ctx context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
			p, err := tmpl.Build(req)
			p.Steps[1].Tool = "stock_chek" // a typo
			return p, nodes.PlanInfo{Source: "test"}, err
		})
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.ErrorIs(t, err, plan.ErrInvalid)
		var ne *graph.NodeError
		require.ErrorAs(t, err, &ne)
		require.Equal(t, nodes.NodePlanner, ne.Node)
		require.ErrorContains(t, err, `step "stock_a": unknown tool "stock_chek"`)
		require.ErrorContains(t, err, `did you mean "stock_check"?`)
		require.Zero(t, c.Calls(delivery.ToolOrderLookup), "nothing ran")
	})

	// The incremental fix (no model call) still repairs what fails at
	// execution: here a stock check whose input the planner wrapped in a
	// one-field object, which the tool refuses as bad input.
	t.Run("bad input at execution → incremental fix → finishes", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		cfg := c.AgentConfig()
		tmpl := c.Template()
		cfg.Planner = plannerFunc(func(ctx context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
			p, err := tmpl.Build(req)
			p.Steps[1].Input = json.RawMessage(`{"input":` + string(p.Steps[1].Input) + `}`)
			return p, nodes.PlanInfo{Source: "test"}, err
		})
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.NoError(t, err)
		require.Equal(t, plan.ErrKindBadInput, outcomeOf(t, out.PastSteps, "stock_a").ErrKind)
		require.Equal(t, "adaptive:incremental", out.Decisions[1].Info.Strategy)
		require.Zero(t, out.Usage.ModelCalls)
		require.Equal(t, 2, out.Usage.Replans)
		require.True(t, out.Response.Complete)
		for _, want := range deliveryAnswerLines {
			require.Contains(t, out.Answer(), want)
		}
	})

	t.Run("a tool that panics → a failed step, not a panic", func(t *testing.T) {
		t.Parallel()
		cfg := flakyConfig()
		cfg.Tools = []tools.Tool{tool.Func{ToolName: "flaky", Fn: func(context.Context, string) (string, error) { panic("boom") }}}
		cfg.Replanner = nil
		app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
		out, err := app.Invoke(t.Context(), nodes.NewInput("fetch"))
		require.NoError(t, err)
		require.Contains(t, out.PastSteps[0].Err, `tool "flaky" panicked: boom`)
		require.Contains(t, out.Answer(), "Stopped early")
	})
}
