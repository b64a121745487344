package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// callLog records tool calls in the order they start and end.
type callLog struct {
	mu     sync.Mutex
	events []string
	calls  map[string]int
}

func (l *callLog) add(ev string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *callLog) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.calls)
}

func (l *callLog) count(tool string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[tool]
}

// tool returns a tool that logs its start and end and answers with fn.
func (l *callLog) tool(name string, fn func(ctx context.Context) (string, error)) tools.Tool {
	return tool.Func{ToolName: name, ToolDescription: "the " + name + " tool", Fn: func(ctx context.Context, in string) (string, error) {
		l.mu.Lock()
		if l.calls == nil {
			l.calls = map[string]int{}
		}
		l.calls[name]++
		l.mu.Unlock()
		l.add(name + " start")
		out, err := fn(ctx)
		l.add(name + " end")
		return out, err
	}}
}

func answer(s string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return s, nil }
}

// TestAnEagerStepStartsWhenItsDependenciesCompleteNotWhenTheRoundDoes runs
// a fast step a, a slow sibling b and a step c that depends on a only. The
// slow tool answers only once c has been called, so the run finishes only
// if c starts while b is still running.
func TestAnEagerStepStartsWhenItsDependenciesCompleteNotWhenTheRoundDoes(t *testing.T) {
	t.Parallel()
	var l callLog
	cCalled := make(chan struct{})
	ts := []tools.Tool{
		l.tool("fast", answer("a done")),
		l.tool("slow", func(ctx context.Context) (string, error) {
			select {
			case <-cCalled:
				return "b done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
		l.tool("next", func(context.Context) (string, error) { close(cCalled); return "c done", nil }),
	}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "fast", `"x"`),
		st("b", "slow", `"y"`),
		st("c", "next", `"{{a.result}}"`, "a"),
		st("answer", "", "", "b", "c"),
	)}
	app := compileAgent(t, cfg, nil, nodes.WithEagerSteps(0))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := app.Invoke(ctx, nodes.NewInput("a, b, then c after a"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Less(t, indexOf(l.events, "next start"), indexOf(l.events, "slow end"), "c started before its slow sibling ended: %v", l.events)
	require.Equal(t, 1, out.Usage.Rounds, "one round: every step's dependencies were in it")
	require.Equal(t, []string{"a", "b", "c", "answer"}, outcomeIDs(out.PastSteps), "outcomes in plan order")
	require.Equal(t, 3, out.Usage.ToolCalls)
	require.Len(t, out.Audit, 3)
	c, _ := out.Plan.Step("c")
	require.Equal(t, "c done", c.Result)
	audit := out.Audit.ForStep("c")
	require.Len(t, audit, 1)
	require.Equal(t, "a done", audit[0].Input, "c's reference resolved against a's outcome in the same round")
}

func indexOf(events []string, ev string) int {
	for i, e := range events {
		if e == ev {
			return i
		}
	}
	return -1
}

func outcomeIDs(outs []nodes.StepOutcome) []string {
	var ids []string
	for _, o := range outs {
		ids = append(ids, o.StepID)
	}
	return ids
}

// TestAnEagerRoundResumesWithoutRerunningFinishedSteps stops a run (as a
// crash or Ctrl-C would) once a and c have finished while their slow
// sibling b is still running, then resumes the thread: only b runs again,
// whether the agent that resumes runs with eager steps or round by round
// (a task does what its Send asks).
func TestAnEagerRoundResumesWithoutRerunningFinishedSteps(t *testing.T) {
	t.Parallel()
	for _, resumeWith := range []struct {
		name string
		opts []nodes.AgentOption
	}{{"eager", []nodes.AgentOption{nodes.WithEagerSteps(0)}}, {"rounds", nil}} {
		t.Run("resumed "+resumeWith.name, func(t *testing.T) {
			t.Parallel()
			eagerRoundResumes(t, resumeWith.opts)
		})
	}
}

func eagerRoundResumes(t *testing.T, resumeOpts []nodes.AgentOption) {
	var l callLog
	var resumed atomic.Bool
	bStarted := make(chan struct{})
	ts := []tools.Tool{
		l.tool("fast", answer("a done")),
		l.tool("slow", func(ctx context.Context) (string, error) {
			if resumed.Load() {
				return "b done", nil
			}
			close(bStarted)
			<-ctx.Done()
			return "", ctx.Err()
		}),
		l.tool("next", func(ctx context.Context) (string, error) {
			select { // c ends while b runs
			case <-bStarted:
				return "c done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
	}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "fast", `"x"`),
		st("b", "slow", `"y"`),
		st("c", "next", `"{{a.result}}"`, "a"),
		st("answer", "", "", "b", "c"),
	)}
	saver := memory.New()
	app := compileAgent(t, cfg, []graph.CompileOption{graph.WithCheckpointer(saver)}, nodes.WithEagerSteps(0))
	thread := graph.WithThread("eager-crash")
	ctx, cancel := context.WithCancel(t.Context())
	var ended []string
	for ev, err := range app.Stream(ctx, nodes.NewInput("a, b, then c after a"), thread, graph.StreamModes(graph.Custom)) {
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			break
		}
		if se, ok := ev.Custom.(nodes.StepEvent); ok && se.Outcome != nil {
			require.False(t, se.Saved)
			ended = append(ended, se.StepID)
			if se.StepID == "c" {
				cancel() // b is still running
			}
		}
	}
	cancel()
	require.ElementsMatch(t, []string{"a", "c"}, ended)
	require.Equal(t, map[string]int{"fast": 1, "slow": 1, "next": 1}, l.counts())

	resumed.Store(true)
	app = compileAgent(t, cfg, []graph.CompileOption{graph.WithCheckpointer(saver)}, resumeOpts...)
	var saved []string
	var out nodes.AgentState
	for ev, err := range app.Stream(t.Context(), state.Update[nodes.AgentState]{}, thread, graph.StreamModes(graph.Custom, graph.Values)) {
		require.NoError(t, err)
		if se, ok := ev.Custom.(nodes.StepEvent); ok && se.Saved {
			saved = append(saved, se.StepID)
		}
		if ev.Mode == graph.Values {
			out = ev.State
		}
	}
	require.ElementsMatch(t, []string{"a", "c"}, saved, "the finished steps come from their saved outcomes")
	require.Equal(t, 1, l.count("fast"), "a was not run again")
	require.Equal(t, 1, l.count("next"), "c was not run again")
	require.Equal(t, 2, l.count("slow"), "b, cut off, ran again")
	require.True(t, out.Response.Complete)
	require.Equal(t, 3, out.Usage.ToolCalls, "the calls whose outcomes were recorded")
	require.Len(t, out.Audit, 3)
	require.Equal(t, []string{"a", "b", "c", "answer"}, outcomeIDs(out.PastSteps))
}

// TestAnEagerRoundKeepsTheBudgetsAndHoldsBackWhatDependsOnAFailure checks
// the budget rules in an eager round: steps beyond the tool calls left wait
// (in plan order), and a failed or blocked step holds back its dependents
// while independent steps go on.
func TestAnEagerRoundKeepsTheBudgetsAndHoldsBackWhatDependsOnAFailure(t *testing.T) {
	t.Parallel()
	t.Run("tool calls", func(t *testing.T) {
		t.Parallel()
		cfg := nodes.AgentConfig{Tools: testTools("search"), Budget: nodes.Budget{MaxToolCalls: 2}, Planner: stepsPlanner(
			st("a", "search", `"1"`),
			st("b", "search", `"2"`, "a"),
			st("c", "search", `"3"`, "b"),
			st("answer", "", "", "c"),
		)}
		out, err := compileAgent(t, cfg, nil, nodes.WithEagerSteps(0)).Invoke(t.Context(), nodes.NewInput("a chain"))
		require.NoError(t, err)
		require.Equal(t, map[string]int{"a": 1, "b": 1}, callsPerStep(out.Audit))
		ans, _ := out.Plan.Step("answer")
		require.NotEqual(t, plan.StatusCompleted, ans.Status, "the answer waits for c, which did not start")
		require.Empty(t, ans.Result)
		require.NotNil(t, out.Stop)
		require.Equal(t, nodes.BudgetToolCalls, out.Stop.Budget)
		require.Equal(t, 2, out.Usage.ToolCalls)
	})
	t.Run("failure", func(t *testing.T) {
		t.Parallel()
		var l callLog
		ts := []tools.Tool{
			l.tool("broken", func(context.Context) (string, error) { return "", errors.New("service unavailable") }),
			l.tool("after", answer("never")),
			l.tool("other", answer("fine")),
		}
		replanned := make(chan nodes.ReplanRequest, 4)
		cfg := nodes.AgentConfig{Tools: ts, Budget: nodes.Budget{MaxReplans: 1}, Planner: stepsPlanner(
			st("a", "broken", `"1"`),
			st("b", "after", `"2"`, "a"),
			st("x", "other", `"3"`),
			st("answer", "", "", "b", "x"),
		), Replanner: replannerFunc(func(_ context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
			replanned <- req
			return plan.Plan{}, nodes.ReplanInfo{}, nodes.ErrNoFix
		})}
		out, err := compileAgent(t, cfg, nil, nodes.WithEagerSteps(0)).Invoke(t.Context(), nodes.NewInput("a fails"))
		require.NoError(t, err)
		require.Equal(t, 0, l.count("after"), "b depends on the failed step")
		require.Equal(t, 1, l.count("other"), "x does not")
		require.Equal(t, map[string]int{"a": 1, "x": 1}, callsPerStep(out.Audit))
		b, _ := out.Plan.Step("b")
		require.Equal(t, plan.StatusPending, b.Status)
		req := <-replanned
		a, _ := req.Plan.Step("a")
		require.Equal(t, plan.StatusFailed, a.Status)
	})
}

// TestEagerStepsKeepToTheirParallelBound runs four independent steps with
// a bound of two.
func TestEagerStepsKeepToTheirParallelBound(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int32
	ts := []tools.Tool{tool.Func{ToolName: "work", ToolDescription: "work", Fn: func(context.Context, string) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		return "ok", nil
	}}}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "work", `"1"`), st("b", "work", `"2"`), st("c", "work", `"3"`), st("d", "work", `"4"`),
		st("answer", "", "", "a", "b", "c", "d"),
	)}
	out, err := compileAgent(t, cfg, nil, nodes.WithEagerSteps(2)).Invoke(t.Context(), nodes.NewInput("four"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.LessOrEqual(t, most.Load(), int32(2))
	require.Equal(t, 4, out.Usage.ToolCalls)
}

// TestEagerRoundsKeepTheToolCallBudgetAHardLimit runs the parallel cases of
// the round-by-round budget rules with eager steps: the same steps start,
// each within the same share, and the total is never exceeded.
func TestEagerRoundsKeepTheToolCallBudgetAHardLimit(t *testing.T) {
	t.Parallel()
	failing := funcTool("work", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") })
	working := funcTool("work", func(context.Context, string) (string, error) { return "done", nil })
	parallel := func(n int) []plan.Step {
		var steps []plan.Step
		var ids []string
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("s%d", i)
			steps = append(steps, st(id, "work", fmt.Sprintf(`{"n":%d}`, i)))
			ids = append(ids, id)
		}
		return append(steps, st("answer", "", "", ids...))
	}
	tests := []struct {
		name   string
		steps  []plan.Step
		tool   tools.Tool
		budget nodes.Budget
		policy nodes.FailurePolicy
		react  *toolCallingModel
		calls  map[string]int
		stop   string
	}{{
		name:  "steps beyond the calls left wait, and so does what depends on them",
		steps: parallel(4), tool: working, budget: nodes.Budget{MaxToolCalls: 2},
		calls: map[string]int{"s1": 1, "s2": 1}, stop: "used 2 of 2",
	}, {
		name:  "retries share what is left",
		steps: parallel(2), tool: failing, budget: nodes.Budget{MaxToolCalls: 5},
		policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3},
		calls:  map[string]int{"s1": 3, "s2": 2}, stop: "used 5 of 5",
	}, {
		name:  "a ReAct step makes no more calls than its share",
		steps: []plan.Step{{ID: "research", Description: "look around"}, st("s1", "work", `{}`), st("answer", "", "", "research", "s1")},
		tool:  working, budget: nodes.Budget{MaxToolCalls: 3},
		react: &toolCallingModel{loop: askTool("c", "work", "again")},
		calls: map[string]int{"research": 2, "s1": 1}, stop: "used 3 of 3",
	}, {
		name:  "enough calls: one round runs the steps and the answer",
		steps: parallel(3), tool: working, budget: nodes.Budget{MaxToolCalls: 4},
		calls: map[string]int{"s1": 1, "s2": 1, "s3": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := nodes.AgentConfig{Tools: []tools.Tool{tt.tool}, Planner: stepsPlanner(tt.steps...),
				Replanner: retryReplanner{}, Budget: tt.budget, FailurePolicy: tt.policy}
			opts := []nodes.AgentOption{nodes.WithEagerSteps(0)}
			if tt.react != nil {
				opts = append(opts, nodes.WithReAct(&nodes.ReActExecutor{Model: tt.react}, nil))
			}
			out, err := compileAgent(t, cfg, nil, opts...).Invoke(t.Context(), nodes.NewInput("work"))
			require.NoError(t, err)
			require.Equal(t, tt.calls, callsPerStep(out.Audit))
			require.Equal(t, len(out.Audit), out.Usage.ToolCalls)
			require.LessOrEqual(t, out.Usage.ToolCalls, tt.budget.MaxToolCalls, "the total is never exceeded")
			if tt.stop == "" {
				require.Nil(t, out.Stop)
				require.True(t, out.Response.Complete)
				require.Len(t, out.Decisions, 1, "one round for the steps and the answer")
				return
			}
			require.NotNil(t, out.Stop)
			require.Contains(t, out.Stop.Error(), tt.stop)
			ans, _ := out.Plan.Step("answer")
			require.NotEqual(t, plan.StatusCompleted, ans.Status)
		})
	}
}
