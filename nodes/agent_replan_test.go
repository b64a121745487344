package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

func TestAgentRejectedIncrementalFixFallsThrough(t *testing.T) {
	t.Parallel()
	// The plan's second step reads a file that is not there: the incremental
	// fix looks it up first with FileFinder, find_file, which changes things
	// (it writes an index), so the fix breaks the query-only guard. (The
	// plan is valid: the agent validates the first plan, so a typo in a
	// tool's name no longer reaches execution.)
	firstPlan := []plan.Step{st("lookup", "lookup", `{}`), st("read", "read_file", `{"path":"/data/records.csv"}`, "lookup"), st("answer", "", "", "read")}
	const guardRefusal = `tool "find_file" changes things, but the request is query-only`
	lookupAgain := []plan.Step{st("check", "lookup", `{"again":true}`, "lookup"), st("answer", "", "", "check")}
	partial := func(steps []plan.Step, err error) nodes.Replanner {
		return nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) { return steps, err }}
	}
	full := nodes.FullReplan{Planner: stepsPlanner(st("fresh", "lookup", `{"fresh":true}`), st("answer", "", "", "fresh"))}
	tests := []struct {
		name     string
		replan   nodes.AdaptiveReplanner
		budget   nodes.Budget
		planInfo nodes.PlanInfo
		strategy string                  // the revision's strategy; "" when none succeeded
		failed   []nodes.StrategyFailure // Reason is a substring
		blocked  []string                // substrings of AgentState.Blocked
		stop     string                  // the budget that stopped the run
	}{{
		name:     "to the partial replan",
		replan:   nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{FileFinder: "find_file"}, Partial: partial(lookupAgain, nil), Full: full},
		strategy: "adaptive:partial:template",
		failed:   []nodes.StrategyFailure{{Strategy: "incremental", Rejected: true, Reason: guardRefusal}},
	}, {
		name:     "to the full replan when the partial one has no fix",
		replan:   nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{FileFinder: "find_file"}, Partial: partial(nil, fmt.Errorf("%w: not this one", nodes.ErrNoFix)), Full: full},
		strategy: "adaptive:full",
		failed: []nodes.StrategyFailure{
			{Strategy: "incremental", Rejected: true, Reason: guardRefusal},
			{Strategy: "partial:template", Reason: "no fix for this failure: not this one"},
		},
	}, {
		name:   "every strategy rejected: blocked, with every reason",
		replan: nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{FileFinder: "find_file"}, Partial: partial([]plan.Step{st("find2", "find_file", `{}`, "lookup")}, nil)},
		failed: []nodes.StrategyFailure{
			{Strategy: "incremental", Rejected: true, Reason: guardRefusal},
			{Strategy: "partial:template", Rejected: true, Reason: `tool "find_file" changes things`},
		},
		blocked: []string{`step "read" failed (missing_file)`, "could not revise: every strategy failed: incremental: nodes: revision rejected", "; partial:template: nodes: revision rejected"},
	}, {
		name:     "the next strategy needs more model calls than are left: a budget stop that records the rejection",
		replan:   nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{FileFinder: "find_file"}, Partial: nodes.PartialReplan{Model: &scriptedModel{replies: []string{"not a plan"}}}},
		budget:   nodes.Budget{MaxModelCalls: 2},
		planInfo: nodes.PlanInfo{Source: "test", ModelCalls: 1},
		failed:   []nodes.StrategyFailure{{Strategy: "incremental", Rejected: true, Reason: guardRefusal}},
		stop:     nodes.BudgetModelCalls,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var indexed atomic.Int32
			ts := []tools.Tool{
				tool.Func{ToolName: "lookup", Fn: func(_ context.Context, in string) (string, error) { return "found " + in, nil }},
				tool.Func{ToolName: "read_file", Fn: func(_ context.Context, in string) (string, error) {
					return "", fmt.Errorf("%w: /data/records.csv", plan.ErrMissingFile)
				}},
				tool.Func{ToolName: "find_file", Mutates: true, Fn: func(context.Context, string) (string, error) { indexed.Add(1); return "/data/x/records.csv", nil }},
			}
			cfg := nodes.AgentConfig{
				Tools: ts,
				Planner: plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
					return plan.Plan{Goal: req.Goal, Steps: firstPlan}, tt.planInfo, nil
				}),
				Replanner: tt.replan,
				Guards:    []plan.Guard{plan.ReadOnlyGuard(ts)},
				Budget:    tt.budget,
			}
			app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
			out, err := app.Invoke(t.Context(), nodes.NewInput("look the records up", "query only: change nothing"))
			require.NoError(t, err)
			require.Zero(t, indexed.Load(), "the guard held")
			require.Equal(t, plan.ErrKindMissingFile, outcomeOf(t, out.PastSteps, "read").ErrKind)

			d := out.Decisions[1] // the round in which "read" failed
			require.Equal(t, nodes.TriggerFailed, d.Trigger.Kind)
			require.NotNil(t, d.Info)
			require.Len(t, d.Info.Failed, len(tt.failed))
			for i, want := range tt.failed {
				got := d.Info.Failed[i]
				require.Equal(t, want.Strategy, got.Strategy)
				require.Equal(t, want.Rejected, got.Rejected)
				require.Contains(t, got.Reason, want.Reason)
			}
			switch {
			case tt.strategy != "":
				require.Equal(t, nodes.ActionRevise, d.Action)
				require.Equal(t, tt.strategy, d.Info.Strategy)
				require.Nil(t, out.Stop)
				require.Empty(t, out.Blocked)
				require.True(t, out.Response.Complete)
				require.Equal(t, 1, out.Usage.Replans)
			case tt.stop != "":
				require.Equal(t, nodes.ActionStop, d.Action)
				require.Equal(t, tt.stop, out.Stop.Budget)
				require.Equal(t, tt.budget.MaxModelCalls, out.Usage.ModelCalls, "the budget is spent, not exceeded")
				require.Contains(t, out.Answer(), "Stopped early: "+out.Stop.Error())
			default:
				require.Equal(t, nodes.ActionBlocked, d.Action)
				for _, want := range tt.blocked {
					require.Contains(t, out.Blocked, want)
				}
				require.Equal(t, out.Blocked, d.Reason)
				require.Contains(t, out.Answer(), "Stopped early: "+out.Blocked)
			}
		})
	}
}

func TestAReplacedFailedStepKeepsItsErrorInThePlanAndTheAnswer(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		tool.Func{ToolName: "evidence_service", Fn: func(context.Context, string) (string, error) {
			return "", errors.New("evidence service unavailable (503)")
		}},
		tool.Func{ToolName: "archive", Fn: func(context.Context, string) (string, error) {
			return `{"conclusion":"the archive has last year's figures"}`, nil
		}},
	}
	partial := nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) {
		return []plan.Step{st("archived", "archive", `{}`), st("answer", "", "", "archived")}, nil
	}}
	app := compileAgent(t, nodes.AgentConfig{
		Planner: onePlan(st("evidence", "evidence_service", `{}`), st("answer", "", "", "evidence")), Tools: ts,
		Replanner: nodes.AdaptiveReplanner{Partial: partial},
	}, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("gather the evidence"))
	require.NoError(t, err)
	require.Equal(t, []string{"archived", "answer"}, stepIDs(out.Plan), "the failed step was replaced")
	require.Len(t, out.Plan.Replaced, 1)
	require.Equal(t, "evidence", out.Plan.Replaced[0].ID)
	require.Equal(t, plan.StatusFailed, out.Plan.Replaced[0].Status)
	require.Contains(t, out.Plan.Replaced[0].Error, "evidence service unavailable (503)")
	require.Contains(t, out.Answer(), "the archive has last year's figures")
	require.Contains(t, out.Answer(), "evidence service unavailable (503)", "the answer still says the evidence service failed")
}
