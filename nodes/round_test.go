package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// stepsPlanner plans the given steps for any goal.
func stepsPlanner(steps ...plan.Step) nodes.Planner {
	return plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
		return plan.Plan{Goal: req.Goal, Steps: steps}, nodes.PlanInfo{Source: "test"}, nil
	})
}

// callsPerStep counts the audit records of each step.
func callsPerStep(l nodes.AuditLog) map[string]int {
	n := map[string]int{}
	for _, r := range l {
		n[r.StepID]++
	}
	return n
}

func TestToolShareSplitsWhatIsLeft(t *testing.T) {
	t.Parallel()
	running := func(s plan.Step) plan.Step { s.Status = plan.StatusRunning; return s }
	p := plan.Plan{Steps: []plan.Step{
		done(st("a", "work", ""), "ra"),
		running(st("b", "work", "")),
		running(st("c", "", "")), // synthesis: no calls
		running(st("d", "work", "")),
		running(st("e", "work", "")),
		st("f", "work", ""), // pending: not in this round
	}}
	tests := []struct {
		name   string
		budget nodes.Budget
		used   int
		want   map[string]int // share per step id
	}{
		{"no total budget", nodes.Budget{}, 7, map[string]int{"b": -1, "d": -1, "e": -1, "c": -1}},
		{"even split", nodes.Budget{MaxToolCalls: 10}, 1, map[string]int{"b": 3, "d": 3, "e": 3, "c": 0}},
		{"uneven split: the first in plan order take the rest", nodes.Budget{MaxToolCalls: 10}, 2, map[string]int{"b": 3, "d": 3, "e": 2}},
		{"one call each", nodes.Budget{MaxToolCalls: 5}, 2, map[string]int{"b": 1, "d": 1, "e": 1}},
		{"not running, no share", nodes.Budget{MaxToolCalls: 5}, 0, map[string]int{"a": 0, "f": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := nodes.NewRoundAgent(nodes.AgentConfig{Budget: tt.budget}, nil, nil)
			for id, want := range tt.want {
				require.Equal(t, want, a.ToolShare(p, nodes.Usage{ToolCalls: tt.used}, id), id)
			}
		})
	}
}

func TestRunningTimeCountsParallelStepsOnce(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(from, to int) nodes.StepOutcome {
		return nodes.StepOutcome{Start: t0.Add(time.Duration(from) * time.Second), End: t0.Add(time.Duration(to) * time.Second)}
	}
	tests := []struct {
		name string
		outs []nodes.StepOutcome
		want time.Duration
	}{
		{"none", nil, 0},
		{"one step", []nodes.StepOutcome{at(0, 5)}, 5 * time.Second},
		{"parallel steps overlap", []nodes.StepOutcome{at(0, 5), at(1, 3), at(2, 8)}, 8 * time.Second},
		{"a step run again after a pause: the gap is not counted", []nodes.StepOutcome{at(0, 5), at(3600, 3602)}, 7 * time.Second},
		{"outcomes without times are left out", []nodes.StepOutcome{{}, at(10, 12)}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, nodes.RunningTime(tt.outs))
		})
	}
}

func TestAgentToolCallBudgetIsAHardLimitWithinARound(t *testing.T) {
	t.Parallel()
	work := func(fail bool) tools.Tool {
		return tool.Func{ToolName: "work", ToolDescription: "does some work",
			Fn: func(context.Context, string) (string, error) {
				if fail {
					return "", errors.New("service unavailable")
				}
				return "done", nil
			}}
	}
	// parallel is n independent steps on the tool, then an answer.
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
		fail   bool
		budget nodes.Budget
		policy nodes.FailurePolicy
		react  *toolCallingModel
		calls  map[string]int // tool calls per step
		stop   string         // "" when the run finishes
	}{{
		name:  "ready steps beyond the calls left wait, in plan order",
		steps: parallel(4), budget: nodes.Budget{MaxToolCalls: 2},
		calls: map[string]int{"s1": 1, "s2": 1},
		stop:  "used 2 of 2",
	}, {
		name:  "retries of parallel steps share what is left",
		steps: parallel(2), fail: true, budget: nodes.Budget{MaxToolCalls: 5},
		policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3},
		calls:  map[string]int{"s1": 3, "s2": 2},
		stop:   "used 5 of 5",
	}, {
		name:  "the per-step budget binds when it is lower than the share",
		steps: parallel(2), fail: true, budget: nodes.Budget{MaxToolCalls: 9, MaxToolCallsPerStep: 2, MaxRoundsWithoutProgress: -1, MaxReplans: 1},
		policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3},
		calls:  map[string]int{"s1": 4, "s2": 4}, // 2 each, twice (one replan)
		stop:   "max_replans",
	}, {
		name:   "a ReAct step makes no more calls than its share",
		steps:  []plan.Step{{ID: "research", Description: "look around"}, st("s1", "work", `{}`), st("answer", "", "", "research", "s1")},
		budget: nodes.Budget{MaxToolCalls: 3},
		react:  &toolCallingModel{loop: askTool("c", "work", "again")},
		calls:  map[string]int{"research": 2, "s1": 1},
		stop:   "used 3 of 3",
	}, {
		name:  "enough calls left: every ready step runs in one round, the answer needs none",
		steps: parallel(3), budget: nodes.Budget{MaxToolCalls: 4},
		calls: map[string]int{"s1": 1, "s2": 1, "s3": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := nodes.AgentConfig{Tools: []tools.Tool{work(tt.fail)}, Planner: stepsPlanner(tt.steps...),
				Replanner: retryReplanner{}, Budget: tt.budget, FailurePolicy: tt.policy}
			var opts []nodes.AgentOption
			if tt.react != nil {
				opts = append(opts, nodes.WithReAct(&nodes.ReActExecutor{Model: tt.react}, nil))
			}
			app := compileAgent(t, cfg, nil, append(opts, nodes.WithRoundByRound())...)
			out, err := app.Invoke(t.Context(), nodes.NewInput("work"))
			require.NoError(t, err)
			require.Equal(t, tt.calls, callsPerStep(out.Audit))
			require.Equal(t, len(out.Audit), out.Usage.ToolCalls)
			if tt.budget.MaxToolCalls > 0 {
				require.LessOrEqual(t, out.Usage.ToolCalls, tt.budget.MaxToolCalls, "the total is never exceeded")
			}
			if tt.stop == "" {
				require.Nil(t, out.Stop)
				require.True(t, out.Response.Complete)
				require.Len(t, out.Decisions, 2, "one round for the steps, one for the answer")
				return
			}
			require.NotNil(t, out.Stop)
			require.Contains(t, out.Stop.Error(), tt.stop)
			require.Contains(t, out.Answer(), "Stopped early: "+out.Stop.Error())
			if tt.react != nil {
				research := outcomeOf(t, out.PastSteps, "research")
				require.Contains(t, research.Err, "stopped by its share of budget max_tool_calls: used 2 of 2")
			}
		})
	}
}

// manualClock is a clock that moves only when told to.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestAgentWallTimeCountsOnlyRunningTime(t *testing.T) {
	t.Parallel()
	// chain is n steps on the tool, each after the one before, then an answer.
	chain := func(n int) []plan.Step {
		var steps []plan.Step
		prev := []string(nil)
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("s%d", i)
			steps = append(steps, st(id, "work", `{}`, prev...))
			prev = []string{id}
		}
		return append(steps, st("answer", "", "", prev...))
	}
	tests := []struct {
		name   string
		steps  int
		maxAll time.Duration
		pauses []time.Duration // Usage.Wall in the checkpoint at each pause
		wall   time.Duration
		stop   string // "" when the run finishes
	}{{
		name:  "an hour's pause after every round is not charged",
		steps: 2, maxAll: time.Minute,
		pauses: []time.Duration{20 * time.Second, 40 * time.Second, 40 * time.Second},
		wall:   40 * time.Second,
	}, {
		name:  "running time adds up across resumes",
		steps: 3, maxAll: 50 * time.Second,
		pauses: []time.Duration{20 * time.Second, 40 * time.Second, time.Minute},
		wall:   time.Minute,
		stop:   "nodes: stopped by budget max_wall: used 1m0s of 50s",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
			work := tool.Func{ToolName: "work", ToolDescription: "takes 20 seconds",
				Fn: func(context.Context, string) (string, error) { clock.advance(20 * time.Second); return "done", nil }}
			cfg := nodes.AgentConfig{Tools: []tools.Tool{work}, Planner: stepsPlanner(chain(tt.steps)...), Budget: nodes.Budget{MaxWall: tt.maxAll}}
			app := compileAgent(t, cfg, []graph.CompileOption{graph.WithCheckpointer(memory.New())}, nodes.WithClock(clock.now), nodes.WithRoundByRound())
			ctx, thread := t.Context(), graph.WithThread("approve-each-round")

			var pauses []time.Duration
			out, err := app.Invoke(ctx, nodes.NewInput("work"), thread, graph.InterruptAfter(nodes.NodeReplan))
			for errors.Is(err, graph.ErrInterrupted) {
				snap, serr := app.State(ctx, thread)
				require.NoError(t, serr)
				pauses = append(pauses, snap.Values.Usage.Wall)
				require.Zero(t, snap.Values.Usage.Start, "the clock is stopped while the thread waits")
				clock.advance(time.Hour) // waiting for someone to approve the next round
				out, err = app.Invoke(ctx, state.Update[nodes.AgentState]{}, thread, graph.InterruptAfter(nodes.NodeReplan))
			}
			require.NoError(t, err)
			require.Equal(t, tt.pauses, pauses)
			require.Equal(t, tt.wall, out.Usage.Wall)
			if tt.stop == "" {
				require.Nil(t, out.Stop)
				require.True(t, out.Response.Complete)
				return
			}
			require.NotNil(t, out.Stop)
			require.Equal(t, nodes.BudgetWall, out.Stop.Budget)
			require.Equal(t, tt.stop, out.Stop.Error())
		})
	}
}

func TestModelShareSplitsWhatIsLeftAmongReActSteps(t *testing.T) {
	t.Parallel()
	running := func(s plan.Step) plan.Step { s.Status = plan.StatusRunning; return s }
	p := plan.Plan{Steps: []plan.Step{
		running(st("b", "", "")),      // described in words: ReAct
		running(st("c", "work", "")),  // a tool call: no model call
		running(st("d", "", "")),      // ReAct
		running(st("e", "", "", "b")), // synthesis: no model call
		running(st("f", "", "")),      // ReAct
		st("g", "", ""),               // pending: not in this round
	}}
	tests := []struct {
		name   string
		budget nodes.Budget
		used   int
		want   map[string]int // share per step id
	}{
		{"no model-call budget", nodes.Budget{}, 7, map[string]int{"b": -1, "d": -1, "f": -1}},
		{"even split", nodes.Budget{MaxModelCalls: 10}, 1, map[string]int{"b": 3, "d": 3, "f": 3}},
		{"uneven split: the first in plan order take the rest", nodes.Budget{MaxModelCalls: 10}, 2, map[string]int{"b": 3, "d": 3, "f": 2}},
		{"steps that make no model call, or are not running, get none", nodes.Budget{MaxModelCalls: 10}, 0, map[string]int{"c": 0, "e": 0, "g": 0}},
		{"the tool-call budget does not change it", nodes.Budget{MaxModelCalls: 3, MaxToolCalls: 1}, 0, map[string]int{"b": 1, "d": 1, "f": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := nodes.NewRoundAgent(nodes.AgentConfig{Budget: tt.budget}, &nodes.ReActExecutor{},
				func(s plan.Step) bool { return s.Tool == "" && len(s.DependsOn) == 0 })
			for id, want := range tt.want {
				require.Equal(t, want, a.ModelShare(p, nodes.Usage{ModelCalls: tt.used}, id), id)
			}
		})
	}
}

// modelCallsPerStep counts the calls m had for each ReAct step, read from
// the step line that opens the step's prompt.
func modelCallsPerStep(m *toolCallingModel) map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := map[string]int{}
	for _, msgs := range m.calls {
		text := msgs[1].Parts[0].(llms.TextContent).Text
		id, _, _ := strings.Cut(strings.TrimPrefix(text, "Step "), ":")
		n[id]++
	}
	return n
}

// spendingRetry is retryReplanner that reports one model call per revision.
type spendingRetry struct{}

func (spendingRetry) Replan(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
	p, info, err := retryReplanner{}.Replan(ctx, req)
	info.ModelCalls = 1
	return p, info, err
}

func TestAgentModelCallBudgetIsAHardLimitWithinARound(t *testing.T) {
	t.Parallel()
	work := tool.Func{ToolName: "work", ToolDescription: "does some work",
		Fn: func(context.Context, string) (string, error) { return "done", nil }}
	// described is n independent steps described in words (run by ReAct),
	// then an answer.
	described := func(n int) []plan.Step {
		var steps []plan.Step
		var ids []string
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("s%d", i)
			steps = append(steps, plan.Step{ID: id, Description: "look around " + id})
			ids = append(ids, id)
		}
		return append(steps, st("answer", "", "", ids...))
	}
	answers := &llms.ContentChoice{Content: "found it"}
	keepsAsking := askTool("c", "work", "again")
	tests := []struct {
		name      string
		steps     []plan.Step
		planned   int // model calls the planner reports
		replanner nodes.Replanner
		budget    nodes.Budget
		perStep   int // ReActExecutor.MaxModelCalls
		reply     *llms.ContentChoice
		calls     map[string]int // model calls per ReAct step
		stop      string         // the stop, "" when the run does not stop on a budget
		blocked   string
		stepErr   string // the error of s1
		err       string // the run's error
	}{{
		name:  "parallel ReAct steps share the model calls left",
		steps: described(3), budget: nodes.Budget{MaxModelCalls: 5}, reply: keepsAsking,
		calls:   map[string]int{"s1": 2, "s2": 2, "s3": 1},
		stop:    "nodes: stopped by budget max_model_calls: used 5 of 5",
		stepErr: `step "s1": stopped by its share of budget max_model_calls: used 2 of 2`,
	}, {
		name:  "ReAct steps beyond the model calls left wait, in plan order",
		steps: described(3), budget: nodes.Budget{MaxModelCalls: 2}, reply: answers,
		calls: map[string]int{"s1": 1, "s2": 1},
		stop:  "nodes: stopped by budget max_model_calls: used 2 of 2",
	}, {
		name:  "the planner's model calls are not shared out again",
		steps: described(2), planned: 3, budget: nodes.Budget{MaxModelCalls: 4}, reply: answers,
		calls: map[string]int{"s1": 1},
		stop:  "nodes: stopped by budget max_model_calls: used 4 of 4",
	}, {
		name:  "no model call left after planning: the planner says which budget",
		steps: described(1), planned: 2, budget: nodes.Budget{MaxModelCalls: 2}, reply: answers,
		calls: map[string]int{},
		err:   "nodes: planner: no model call is left to run the plan's first steps (max_model_calls: used 2 of 2)",
	}, {
		name:  "a revision that spends the last model call stops the run, naming the budget",
		steps: described(1), replanner: spendingRetry{}, budget: nodes.Budget{MaxModelCalls: 2}, perStep: 1, reply: keepsAsking,
		calls:   map[string]int{"s1": 1},
		stop:    "nodes: stopped by budget max_model_calls: used 2 of 2",
		stepErr: `step "s1": per-step model budget spent (1 calls)`,
	}, {
		name:  "the per-step limit binds when it is lower than the share",
		steps: described(2), budget: nodes.Budget{MaxModelCalls: 10}, perStep: 2, reply: keepsAsking,
		calls:   map[string]int{"s1": 2, "s2": 2},
		blocked: "could not revise",
		stepErr: `step "s1": per-step model budget spent (2 calls)`,
	}, {
		name:  "enough model calls left: every step runs in one round, the answer needs none",
		steps: described(2), budget: nodes.Budget{MaxModelCalls: 3}, reply: answers,
		calls: map[string]int{"s1": 1, "s2": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			planner := plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
				return plan.Plan{Goal: req.Goal, Steps: tt.steps}, nodes.PlanInfo{Source: "test", ModelCalls: tt.planned}, nil
			})
			cfg := nodes.AgentConfig{Tools: []tools.Tool{work}, Planner: planner, Replanner: tt.replanner, Budget: tt.budget}
			m := &toolCallingModel{loop: tt.reply}
			app := compileAgent(t, cfg, nil, nodes.WithReAct(&nodes.ReActExecutor{Model: m, MaxModelCalls: tt.perStep}, nil), nodes.WithRoundByRound())
			out, err := app.Invoke(t.Context(), nodes.NewInput("look around"))
			require.Equal(t, tt.calls, modelCallsPerStep(m))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			replans := 0
			for _, d := range out.Decisions {
				if d.Info != nil {
					replans += d.Info.ModelCalls
				}
			}
			require.Equal(t, tt.planned+len(m.calls)+replans, out.Usage.ModelCalls, "every model call is counted")
			require.LessOrEqual(t, out.Usage.ModelCalls, tt.budget.MaxModelCalls, "the total is never exceeded")
			if tt.stepErr != "" {
				require.Contains(t, outcomeOf(t, out.PastSteps, "s1").Err, tt.stepErr)
			}
			switch {
			case tt.stop != "":
				require.NotNil(t, out.Stop)
				require.Equal(t, tt.stop, out.Stop.Error())
				require.Contains(t, out.Answer(), "Stopped early: "+out.Stop.Error())
			case tt.blocked != "":
				require.Nil(t, out.Stop)
				require.Contains(t, out.Blocked, tt.blocked)
			default:
				require.Nil(t, out.Stop)
				require.True(t, out.Response.Complete)
				require.Len(t, out.Decisions, 2, "one round for the steps, one for the answer")
			}
		})
	}
}

// startRound and the execute tasks agree: every step a round starts gets a
// share of at least one call of each budget it spends, and the shares add
// up to no more than what is left.
func TestSharesMatchTheStartedSteps(t *testing.T) {
	t.Parallel()
	ts := testTools("t")
	m := &toolCallingModel{}
	a, err := nodes.NewAgent(nodes.AgentConfig{Planner: stepsPlanner(), Tools: ts,
		Budget: nodes.Budget{MaxToolCalls: 10, MaxModelCalls: 5}}, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil))
	require.NoError(t, err)
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		{ID: "r1", Description: "research 1"}, {ID: "t1", Description: "tool 1", Tool: "t"},
		{ID: "r2", Description: "research 2"}, {ID: "r3", Description: "research 3"},
		{ID: "t2", Description: "tool 2", Tool: "t"}, {ID: "t3", Description: "tool 3", Tool: "t"},
		{ID: "answer", Description: "answer", DependsOn: []string{"t1"}},
	}}
	for _, u := range []nodes.Usage{{ToolCalls: 7, ModelCalls: 3}, {ToolCalls: 9, ModelCalls: 1}, {ToolCalls: 5, ModelCalls: 4}, {}} {
		started, n := a.StartRound(p, u)
		require.Positive(t, n)
		toolSum, modelSum := 0, 0
		for _, s := range started.Steps {
			if s.Status != plan.StatusRunning {
				continue
			}
			if a.CallsTools(s) {
				sh := a.ToolShare(started, u, s.ID)
				require.Positive(t, sh, "usage %+v: step %s started with no tool call", u, s.ID)
				toolSum += sh
			}
			if a.RunsReAct(s) {
				sh := a.ModelShare(started, u, s.ID)
				require.Positive(t, sh, "usage %+v: step %s started with no model call", u, s.ID)
				modelSum += sh
			}
		}
		require.Equal(t, nodes.ToolCallsLeft(a.Config().Budget, u), toolSum)
		require.LessOrEqual(t, modelSum, nodes.ModelCallsLeft(a.Config().Budget, u))
	}
}
