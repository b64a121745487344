package nodes_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// compileAgent builds and compiles an agent, failing the test on error.
func compileAgent(t *testing.T, cfg nodes.AgentConfig, copts []graph.CompileOption, opts ...nodes.AgentOption) *graph.Compiled[nodes.AgentState] {
	t.Helper()
	a, err := nodes.NewAgent(cfg, opts...)
	require.NoError(t, err)
	app, err := a.Compile(copts...)
	require.NoError(t, err)
	return app
}

// The delivery answer's key lines, shared by the graph tests.
var deliveryAnswerLines = []string{
	"Warehouse A cannot make it: no stock (0 available), restock Saturday 10:00, so delivery would be next Monday 18:00, after Friday 18:00.",
	"Evidence: stock_check A: 0 available, restock Saturday 10:00, earliest arrival next Monday 18:00",
	"warehouse B, express: arrives Thursday 18:00, extra 35 — excluded: extra cost 35 > 20 (the cap)",
	"warehouse B, standard: arrives Friday 16:00, extra 10 — candidate",
	"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00",
	"Confirm by Tuesday 16:00",
	"Nothing was changed",
}

func TestAgentDeliveryCaseThroughTheGraph(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	app := compileAgent(t, c.AgentConfig(), nil, nodes.WithRoundByRound())

	var rounds [][]string // step ids of each execute superstep
	var steps []int
	var final nodes.AgentState
	for ev, err := range app.Stream(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.StreamModes(graph.Tasks, graph.Values)) {
		require.NoError(t, err)
		switch {
		case ev.Mode == graph.Values:
			final = ev.State
		case ev.Mode == graph.Tasks && ev.Node == nodes.NodeExecute && ev.Task.Result:
			require.NoError(t, ev.Task.Err)
			id := ev.Update.Writes[0].Value().([]nodes.StepOutcome)[0].StepID
			if i := slices.Index(steps, ev.Step); i >= 0 {
				rounds[i] = append(rounds[i], id)
			} else {
				steps, rounds = append(steps, ev.Step), append(rounds, []string{id})
			}
		}
	}
	for _, r := range rounds {
		slices.Sort(r)
	}

	// The plan: order → stock at A → deliver from A → answer; no model.
	require.Equal(t, []string{"order"}, rounds[0])
	require.Equal(t, []string{"stock_a"}, rounds[1])
	// The blocked premise: the stock check succeeded and showed A is blocked.
	stockA := outcomeOf(t, final.PastSteps, "stock_a")
	require.Equal(t, plan.StatusCompleted, stockA.Status)
	require.True(t, stockA.Blocked)
	require.Contains(t, stockA.BlockReason, "next Monday 18:00")
	require.Equal(t, "arranging delivery from warehouse A has lost its premise; evaluate other warehouses", stockA.Impact)
	// The replan: deliver_a and answer replaced by the evaluation of B.
	require.Len(t, final.Decisions, 4)
	d := final.Decisions[1]
	require.Equal(t, nodes.ActionRevise, d.Action)
	require.Equal(t, nodes.TriggerBlocked, d.Trigger.Kind)
	require.Equal(t, []string{"order", "stock_a"}, d.Info.Kept)
	require.Equal(t, []string{"deliver_a", "answer"}, d.Info.Removed)
	require.Nil(t, d.Plan, "decisions do not repeat the plan")
	require.Equal(t, []string{"b_express", "b_standard", "b_stock"}, rounds[2], "independent steps in one superstep")
	require.Equal(t, []string{"recommend"}, rounds[3])
	require.Equal(t, nodes.ActionFinish, final.Decisions[3].Action)
	require.Equal(t, []string{"order", "stock_a", "b_stock", "b_express", "b_standard", "recommend"}, stepIDs(final.Plan))
	require.True(t, final.Plan.Done())

	// Usage and audit.
	require.Equal(t, nodes.Usage{Wall: final.Usage.Wall, ToolCalls: 5, Replans: 1, Rounds: 4}, final.Usage)
	require.Len(t, final.Audit, 5)
	require.Equal(t, 6, final.Applied)
	require.Len(t, final.PastSteps, 6)
	for _, o := range final.PastSteps {
		require.Nil(t, o.Audit, "audit records live in Audit only")
	}
	require.Equal(t, []string{"order", "stock_a"}, []string{final.Audit[0].StepID, final.Audit[1].StepID})
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Equal(t, 2, c.Calls(delivery.ToolShippingQuote), "express excluded by its quote, never the original route's quote")

	// The answer.
	require.True(t, final.Response.Complete)
	for _, want := range deliveryAnswerLines {
		require.Contains(t, final.Answer(), want)
	}
	require.NotContains(t, final.Answer(), "Stopped early")
	require.Nil(t, final.Stop)
	require.Empty(t, final.Blocked)
}

func TestAgentRunsIndependentStepsInOneSuperstep(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	saver := memory.New()
	app := compileAgent(t, c.AgentConfig(), []graph.CompileOption{graph.WithCheckpointer(saver)}, nodes.WithRoundByRound())
	ctx := t.Context()
	out, err := app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("parallel"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)

	// The checkpoint before the third execute step has three execute tasks
	// pending: the three independent evaluations of warehouse B.
	var fanned *graph.Snapshot[nodes.AgentState]
	for snap, err := range app.History(ctx, graph.WithThread("parallel")) {
		require.NoError(t, err)
		if len(snap.Tasks) == 3 {
			fanned = snap
		}
	}
	require.NotNil(t, fanned, "a checkpoint with three pending tasks")
	for _, task := range fanned.Tasks {
		require.Equal(t, nodes.NodeExecute, task.Node)
	}
	require.Equal(t, []string{nodes.NodeExecute, nodes.NodeExecute, nodes.NodeExecute}, fanned.Next)
	var running []string
	for _, s := range fanned.Values.Plan.Steps {
		if s.Status == plan.StatusRunning {
			running = append(running, s.ID)
		}
	}
	require.Equal(t, []string{"b_stock", "b_express", "b_standard"}, running)

	// The step after it ran replan once, though three tasks led to it.
	var replans int
	for snap, err := range app.History(ctx, graph.WithThread("parallel")) {
		require.NoError(t, err)
		if slices.Equal(snap.Next, []string{nodes.NodeReplan}) {
			replans++
		}
	}
	require.Equal(t, 4, replans, "one replan per round")
}

func TestAgentMermaid(t *testing.T) {
	t.Parallel()
	app := compileAgent(t, delivery.New().AgentConfig(), nil)
	got := app.Mermaid()
	golden := filepath.Join("testdata", "agent.mmd")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func TestAgentGraphIsExtensible(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	a, err := nodes.NewAgent(c.AgentConfig())
	require.NoError(t, err)
	// A user adds a node after respond, e.g. to log the answer.
	var logged string
	a.Graph().AddNode("log", func(_ context.Context, s nodes.AgentState) (state.Update[nodes.AgentState], error) {
		logged = s.Answer()
		return state.Update[nodes.AgentState]{}, nil
	}).AddEdge(nodes.NodeRespond, "log")
	app, err := a.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Equal(t, out.Answer(), logged)
	require.Contains(t, app.Mermaid(), "respond --> log;")
}

func TestNewAgentNeedsAPlannerOrAModel(t *testing.T) {
	t.Parallel()
	_, err := nodes.NewAgent(nodes.AgentConfig{Tools: delivery.New().Tools()})
	require.ErrorIs(t, err, nodes.ErrNoPlanner)
}

// Seed 000 "多步骤信息收集": independent steps run in parallel. The three
// quotes of a round are in flight at the same time (each waits for the
// others before answering), which only works if they really run together.
func TestReadyStepsRunConcurrently(t *testing.T) {
	t.Parallel()
	const n = 3
	var arrived atomic.Int32
	all := make(chan struct{})
	ts := []tools.Tool{tool.Func{ToolName: "search", ToolDescription: "search", Fn: func(ctx context.Context, in string) (string, error) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return "hits for " + in, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}}}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "search", `"competitor A"`),
		st("b", "search", `"competitor B"`),
		st("c", "search", `"competitor C"`),
		st("compare", "", "", "a", "b", "c"),
	)}
	app := compileAgent(t, cfg, nil, nodes.WithRoundByRound())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := app.Invoke(ctx, nodes.NewInput("compare competitors"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Equal(t, 2, out.Usage.Rounds, "one round for the three searches, one for the comparison")
	cmp, _ := out.Plan.Step("compare")
	require.Equal(t, "a: hits for competitor A\nb: hits for competitor B\nc: hits for competitor C", cmp.Result)
}

func TestRecursionLimitLetsALongChainFinish(t *testing.T) {
	t.Parallel()
	var steps []plan.Step
	prev := []string(nil)
	for i := range 13 {
		id := fmt.Sprintf("s%02d", i)
		steps = append(steps, st(id, "search", `"q"`, prev...))
		prev = []string{id}
	}
	steps = append(steps, st("answer", "", "", prev...))
	agent, err := nodes.NewAgent(nodes.AgentConfig{Planner: onePlan(steps...), Tools: testTools("search"), Budget: nodes.Budget{MaxReplans: 2}}, nodes.WithRoundByRound())
	require.NoError(t, err)
	app, err := agent.Compile()
	require.NoError(t, err)

	_, err = app.Invoke(t.Context(), nodes.NewInput("walk the chain"), graph.WithRecursionLimit(graph.DefaultRecursionLimit))
	require.ErrorIs(t, err, graph.ErrRecursionLimit, "the package default allows about eleven rounds, and a call's limit wins")

	require.Greater(t, agent.RecursionLimit(len(steps)), graph.DefaultRecursionLimit)
	out, err := app.Invoke(t.Context(), nodes.NewInput("walk the chain"))
	require.NoError(t, err, "the agent's own limit follows from its budget")
	require.True(t, out.Response.Complete)
	require.Equal(t, 13, out.Usage.ToolCalls)
}
