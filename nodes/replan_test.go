package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

func done(s plan.Step, result string, evidence ...string) plan.Step {
	s.Status, s.Result, s.Evidence = plan.StatusCompleted, result, evidence
	return s
}

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	a := done(st("a", "t", ""), "ra")
	b := st("b", "t", "", "a")
	failed := st("b", "t", "", "a")
	failed.Status, failed.Error = plan.StatusFailed, "unknown tool \"t\""
	skipped := st("b", "t", "", "a")
	skipped.Status = plan.StatusSkipped
	tests := []struct {
		name     string
		plan     plan.Plan
		outcomes []nodes.StepOutcome
		budget   nodes.Budget
		usage    nodes.Usage
		action   nodes.Action
		trigger  nodes.TriggerKind
		stop     string
	}{
		{"continue", plan.Plan{Steps: []plan.Step{a, b}}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionContinue, "", ""},
		{"finish", plan.Plan{Steps: []plan.Step{a, done(b, "rb")}}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionFinish, "", ""},
		{"finish beats a spent budget", plan.Plan{Steps: []plan.Step{a}}, nil, nodes.Budget{MaxToolCalls: 1}, nodes.Usage{ToolCalls: 5}, nodes.ActionFinish, "", ""},
		{"blocked route → revise", plan.Plan{Steps: []plan.Step{a, b}}, []nodes.StepOutcome{{StepID: "a", Status: plan.StatusCompleted, Blocked: true, BlockReason: "no stock"}}, nodes.Budget{}, nodes.Usage{}, nodes.ActionRevise, nodes.TriggerBlocked, ""},
		{"failed step → revise", plan.Plan{Steps: []plan.Step{a, failed}}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionRevise, nodes.TriggerFailed, ""},
		{"a skipped dependency does not block → continue", plan.Plan{Steps: []plan.Step{a, skipped, st("c", "t", "", "b")}}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionContinue, "", ""},
		{"stuck behind a missing step → revise", plan.Plan{Steps: []plan.Step{a, st("c", "t", "", "ghost")}}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionRevise, nodes.TriggerStuck, ""},
		{"finished, but the last round found the route blocked → revise", plan.Plan{Steps: []plan.Step{a}}, []nodes.StepOutcome{{StepID: "a", Status: plan.StatusCompleted, Blocked: true, BlockReason: "no stock"}}, nodes.Budget{}, nodes.Usage{}, nodes.ActionRevise, nodes.TriggerBlocked, ""},
		{"revise refused by replan budget", plan.Plan{Steps: []plan.Step{a, failed}}, nil, nodes.Budget{MaxReplans: 1}, nodes.Usage{Replans: 1}, nodes.ActionStop, nodes.TriggerFailed, nodes.BudgetReplans},
		{"tool budget", plan.Plan{Steps: []plan.Step{a, b}}, nil, nodes.Budget{MaxToolCalls: 2}, nodes.Usage{ToolCalls: 2}, nodes.ActionStop, "", nodes.BudgetToolCalls},
		{"model budget", plan.Plan{Steps: []plan.Step{a, b}}, nil, nodes.Budget{MaxModelCalls: 2}, nodes.Usage{ModelCalls: 2}, nodes.ActionStop, "", nodes.BudgetModelCalls},
		{"wall budget", plan.Plan{Steps: []plan.Step{a, b}}, nil, nodes.Budget{MaxWall: time.Second}, nodes.Usage{Start: now.Add(-time.Hour)}, nodes.ActionStop, "", nodes.BudgetWall},
		{"no progress", plan.Plan{Steps: []plan.Step{a, b}}, nil, nodes.Budget{}, nodes.Usage{RoundsWithoutProgress: 2}, nodes.ActionStop, "", nodes.BudgetRoundsWithoutProgress},
		{"empty plan", plan.Plan{}, nil, nodes.Budget{}, nodes.Usage{}, nodes.ActionBlocked, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := nodes.Decide(nodes.RoundInput{Plan: tt.plan, Outcomes: tt.outcomes, Budget: tt.budget, Usage: tt.usage, Now: now})
			require.Equal(t, tt.action, d.Action, d.Reason)
			require.NotEmpty(t, d.Reason)
			if tt.trigger != "" {
				require.Equal(t, tt.trigger, d.Trigger.Kind)
			}
			if tt.stop != "" {
				require.Equal(t, tt.stop, d.Stop.Budget)
				require.Contains(t, d.Reason, tt.stop)
			}
		})
	}
}

func failedPlan(kind plan.ErrorKind, step plan.Step) (nodes.ReplanRequest, []tools.Tool) {
	ts := testTools("search", "read_file", "find_file")
	step.Status, step.Error = plan.StatusFailed, "boom"
	p := plan.Plan{Goal: "g", Constraints: []string{"c"}, Steps: []plan.Step{done(st("a", "search", `"q"`), "ra", "ea"), step, st("z", "", "", step.ID)}}
	return nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerFailed, StepID: step.ID, ErrKind: kind, Error: "boom"}, Tools: ts}, ts
}

func TestIncrementalFix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		kind  plan.ErrorKind
		step  plan.Step
		fix   nodes.IncrementalFix
		want  []plan.Step // the steps that replace the failed one
		noFix bool
	}{
		{"unknown tool → closest", plan.ErrKindUnknownTool, st("b", "serach", `"x"`, "a"), nodes.IncrementalFix{},
			[]plan.Step{{ID: "b", Description: "do b", Tool: "search", Input: json.RawMessage(`"x"`), DependsOn: []string{"a"}, Status: plan.StatusPending}}, false},
		{"unknown tool, nothing close", plan.ErrKindUnknownTool, st("b", "weather", "", "a"), nodes.IncrementalFix{}, nil, true},
		{"bad input: stringified JSON with trailing comma", plan.ErrKindBadInput, st("b", "search", `"{\"q\": 1,}"`, "a"), nodes.IncrementalFix{},
			[]plan.Step{{ID: "b", Description: "do b", Tool: "search", Input: json.RawMessage(`{"q": 1}`), DependsOn: []string{"a"}, Status: plan.StatusPending}}, false},
		{"bad input: one-field wrapper object unwrapped", plan.ErrKindBadInput, st("b", "search", `{"input":{"query":"x"}}`, "a"), nodes.IncrementalFix{},
			[]plan.Step{{ID: "b", Description: "do b", Tool: "search", Input: json.RawMessage(`{"query":"x"}`), DependsOn: []string{"a"}, Status: plan.StatusPending}}, false},
		// An object input is never stripped to a string: {"query":"x"}
		// is what a tool taking an object wants, and one missing a field
		// (`missing required field "date"`) needs the field, which only
		// a model can supply — the next strategy.
		{"bad input: an object input is not stripped to a string", plan.ErrKindBadInput, st("b", "search", `{"query":"x"}`, "a"), nodes.IncrementalFix{}, nil, true},
		{"bad input, nothing to repair", plan.ErrKindBadInput, st("b", "search", `{"a":1,"b":2}`, "a"), nodes.IncrementalFix{}, nil, true},
		{"missing file → find it first", plan.ErrKindMissingFile, st("b", "read_file", `{"path":"/data/sales.csv"}`, "a"), nodes.IncrementalFix{FileFinder: "find_file"},
			[]plan.Step{
				{ID: "b_find", Description: `find the file "sales.csv" that b needs`, Tool: "find_file", Input: json.RawMessage(`{"name":"sales.csv"}`), DependsOn: []string{"a"}, Status: plan.StatusPending},
				{ID: "b", Description: "do b", Tool: "read_file", Input: json.RawMessage(`{"path":"{{b_find.result}}"}`), DependsOn: []string{"a", "b_find"}, Status: plan.StatusPending},
			}, false},
		{"missing file without a finder", plan.ErrKindMissingFile, st("b", "read_file", `{"path":"x"}`, "a"), nodes.IncrementalFix{}, nil, true},
		{"other errors are not incremental", plan.ErrKindOther, st("b", "search", "", "a"), nodes.IncrementalFix{}, nil, true},
		{"extra fix", plan.ErrKindOther, st("b", "search", "", "a"), nodes.IncrementalFix{Extra: []nodes.Fix{func(_ nodes.ReplanRequest, s plan.Step) ([]plan.Step, bool) {
			s.Input = json.RawMessage(`"fixed"`)
			return []plan.Step{s}, true
		}}}, []plan.Step{{ID: "b", Description: "do b", Tool: "search", Input: json.RawMessage(`"fixed"`), DependsOn: []string{"a"}, Status: plan.StatusPending}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, ts := failedPlan(tt.kind, tt.step)
			p, info, err := nodes.Revise(t.Context(), tt.fix, req)
			if tt.noFix {
				require.ErrorIs(t, err, nodes.ErrNoFix)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "incremental", info.Strategy)
			require.Zero(t, info.ModelCalls)
			require.Equal(t, req.Plan.Steps[0], p.Steps[0], "completed step untouched")
			require.Equal(t, tt.want, p.Steps[1:len(p.Steps)-1])
			require.NoError(t, plan.Validate(p, ts))
		})
	}
}

func TestPartialReplanKeepsCompletedWork(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "fetch")
	p := plan.Plan{Goal: "g", Constraints: []string{"budget ≤ 20"}, Steps: []plan.Step{
		done(st("a", "search", `"q"`), "ra", "ea"),
		{ID: "b", Description: "blocked", Tool: "search", DependsOn: []string{"a"}, Status: plan.StatusCompleted, Result: "rb", Evidence: []string{"eb"}},
		st("c", "fetch", "", "b"), st("d", "", "", "c"),
	}}
	req := nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "b", BlockReason: "route blocked"}, Tools: ts}

	t.Run("template", func(t *testing.T) {
		t.Parallel()
		r := nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) {
			return []plan.Step{st("e", "fetch", `"{{a.result}}"`, "a"), st("f", "", "", "e", "b")}, nil
		}}
		np, info, err := nodes.Revise(t.Context(), r, req)
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "e", "f"}, stepIDs(np))
		require.Equal(t, p.Steps[:2], np.Steps[:2])
		require.Equal(t, []string{"a", "b"}, info.Kept)
		require.Equal(t, []string{"c", "d"}, info.Removed)
		require.Equal(t, []string{"e", "f"}, info.Added)
		require.Equal(t, p.Constraints, np.Constraints)
	})

	t.Run("model, re-asked after a clash with a completed id", func(t *testing.T) {
		t.Parallel()
		m := &scriptedModel{replies: []string{
			`{"steps":[{"id":"b","description":"again","tool":"fetch","depends_on":["a"]},{"id":"f","description":"answer","tool":"","depends_on":["b"]}]}`,
			"```json\n" + `{"steps":[{"id":"a","description":"repeat","tool":"search","input":"q"},{"id":"e","description":"fetch","tool":"fetch","input":"{{b.result}}","depends_on":["b"]},{"id":"f","description":"answer","tool":"","depends_on":["e"]}]}` + "\n```",
		}}
		np, info, err := nodes.Revise(t.Context(), nodes.PartialReplan{Model: m}, req)
		require.NoError(t, err)
		require.Equal(t, "partial:model", info.Strategy)
		require.Equal(t, 2, info.ModelCalls)
		require.Equal(t, nodes.Tokens{Prompt: 200, Completion: 40, Total: 240}, info.Tokens)
		require.Equal(t, []string{"a", "b", "e", "f"}, stepIDs(np), "the repeated completed step is dropped, not duplicated")
		require.Contains(t, m.prompts[0], "- b [search] blocked\n  result: rb\n  evidence: eb")
		require.Contains(t, m.prompts[0], "What happened: step b — succeeded and showed the route is blocked: route blocked")
		require.Contains(t, m.prompts[0], "- budget ≤ 20")
		require.Contains(t, m.prompts[1], `step "b": duplicate id: steps 2 and 3 share it`)
	})
}

func TestFullReplanKeepsCompletedStepsAndRenames(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "fetch")
	p := plan.Plan{Goal: "g", Steps: []plan.Step{done(st("s1", "search", `"q"`), "r1", "e1"), {ID: "s2", Description: "x", Tool: "fetch", Status: plan.StatusFailed, Error: "boom", DependsOn: []string{"s1"}}}}
	planner := &nodes.LLMPlanner{Model: &scriptedModel{replies: []string{
		`{"steps":[{"id":"s1","description":"fetch it","tool":"fetch","input":"x"},{"id":"s2","description":"answer","tool":"","input":"{{s1.result}}","depends_on":["s1"]}]}`,
	}}, Tools: ts}
	np, info, err := nodes.Revise(t.Context(), nodes.FullReplan{Planner: planner}, nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerFailed, StepID: "s2", Error: "boom"}, Tools: ts})
	require.NoError(t, err)
	require.Equal(t, "full", info.Strategy)
	require.Equal(t, 1, info.ModelCalls)
	require.Equal(t, []string{"s1", "s1_2", "s2"}, stepIDs(np))
	require.Equal(t, p.Steps[0], np.Steps[0])
	s2, _ := np.Step("s2")
	require.Equal(t, []string{"s1_2"}, s2.DependsOn)
	require.Equal(t, `"{{s1_2.result}}"`, string(s2.Input))
	require.Equal(t, plan.StatusPending, s2.Status)
}

func TestAdaptiveReplannerChooses(t *testing.T) {
	t.Parallel()
	mk := func(done, total int, trig nodes.Trigger) nodes.ReplanRequest {
		var steps []plan.Step
		for i := range total {
			s := st(string(rune('a'+i)), "t", "")
			if i < done {
				s.Status = plan.StatusCompleted
			}
			steps = append(steps, s)
		}
		return nodes.ReplanRequest{Plan: plan.Plan{Steps: steps}, Trigger: trig}
	}
	a := nodes.AdaptiveReplanner{}
	require.Equal(t, []string{"incremental", "full", "partial"}, a.Choose(mk(0, 10, nodes.Trigger{Kind: nodes.TriggerFailed, ErrKind: plan.ErrKindUnknownTool})))
	require.Equal(t, []string{"full", "partial"}, a.Choose(mk(1, 10, nodes.Trigger{Kind: nodes.TriggerFailed, ErrKind: plan.ErrKindOther})))
	require.Equal(t, []string{"partial", "full"}, a.Choose(mk(5, 10, nodes.Trigger{Kind: nodes.TriggerFailed, ErrKind: plan.ErrKindOther})))
	require.Equal(t, []string{"partial", "full"}, a.Choose(mk(8, 10, nodes.Trigger{Kind: nodes.TriggerFailed, ErrKind: plan.ErrKindTimeout})))
	require.Equal(t, []string{"partial", "full"}, a.Choose(mk(0, 10, nodes.Trigger{Kind: nodes.TriggerBlocked})))

	// Incremental has no fix for an unknown tool with nothing close: partial takes over.
	req, _ := failedPlan(plan.ErrKindUnknownTool, st("b", "weather", "", "a"))
	partial := nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) {
		return []plan.Step{st("n", "search", "", "a"), st("m", "", "", "n")}, nil
	}}
	p, info, err := nodes.Revise(t.Context(), nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: partial, EarlyFraction: 0.1}, req)
	require.NoError(t, err)
	require.Equal(t, "adaptive:partial:template", info.Strategy)
	require.Equal(t, []string{"a", "n", "m"}, stepIDs(p))

	// No strategy can help: ErrNoFix.
	_, _, err = nodes.Revise(t.Context(), nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}}, req)
	require.ErrorIs(t, err, nodes.ErrNoFix)
}

func TestCheckRevisionInvariants(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "change")
	ts[1] = tool.Func{ToolName: "change", ToolDescription: "mutates", Mutates: true, Fn: func(context.Context, string) (string, error) { return "", nil }}
	old := plan.Plan{Goal: "g", Constraints: []string{"cost ≤ 20", "query only"}, Steps: []plan.Step{done(st("a", "search", `"q"`), "ra", "e1", "e2"), st("b", "search", "", "a")}}
	tests := []struct {
		name   string
		mutate func(p *plan.Plan)
		kind   plan.ProblemKind
		msg    string
	}{
		{"completed step dropped", func(p *plan.Plan) { p.Steps = p.Steps[1:]; p.Steps[0].DependsOn = nil }, plan.ProblemDroppedWork, `step "a": completed step dropped`},
		{"completed step reset", func(p *plan.Plan) { p.Steps[0].Status = plan.StatusPending }, plan.ProblemDroppedWork, "completed step altered"},
		{"completed result changed", func(p *plan.Plan) { p.Steps[0].Result = "other" }, plan.ProblemDroppedWork, "completed step altered"},
		{"evidence dropped", func(p *plan.Plan) { p.Steps[0].Evidence = []string{"e1"} }, plan.ProblemDroppedWork, `evidence dropped: "e2"`},
		{"constraint relaxed", func(p *plan.Plan) { p.Constraints[0] = "cost ≤ 40" }, plan.ProblemConstraint, `constraint dropped or altered: "cost ≤ 20"`},
		{"constraint dropped", func(p *plan.Plan) { p.Constraints = p.Constraints[:1] }, plan.ProblemConstraint, `constraint dropped or altered: "query only"`},
		{"goal changed", func(p *plan.Plan) { p.Goal = "easier" }, plan.ProblemConstraint, `goal changed from "g" to "easier"`},
		{"invalid revision", func(p *plan.Plan) { p.Steps[1].Tool = "nope" }, plan.ProblemUnknownTool, `unknown tool "nope"`},
		{"guard: side effects in a query-only run", func(p *plan.Plan) { p.Steps[1].Tool = "change" }, plan.ProblemConstraint, `tool "change" changes things`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := old.Clone()
			tt.mutate(&p)
			err := nodes.CheckRevision(old, p, ts, plan.ReadOnlyGuard(ts))
			require.ErrorIs(t, err, nodes.ErrRevisionRejected)
			require.ErrorIs(t, err, plan.ErrInvalid)
			var pe *plan.ValidationError
			require.True(t, errors.As(err, &pe))
			require.True(t, pe.Has(tt.kind), "%v", pe.Problems)
			require.ErrorContains(t, err, tt.msg)
		})
	}
	// Adding a constraint and more evidence is fine.
	p := old.Clone()
	p.Constraints = append(p.Constraints, "new")
	p.Steps[0].Evidence = append(p.Steps[0].Evidence, "e3")
	require.NoError(t, nodes.CheckRevision(old, p, ts, plan.ReadOnlyGuard(ts)))
}

func TestReplanRoundBlockedWhenNothingHelps(t *testing.T) {
	t.Parallel()
	req, ts := failedPlan(plan.ErrKindOther, st("b", "search", "", "a"))
	d, err := nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: req.Plan, Now: time.Now()}, nodes.IncrementalFix{}, ts)
	require.NoError(t, err)
	require.Equal(t, nodes.ActionBlocked, d.Action)
	require.Contains(t, d.Reason, "could not revise")

	d, err = nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: req.Plan, Now: time.Now()}, nil, ts)
	require.NoError(t, err)
	require.Equal(t, nodes.ActionBlocked, d.Action)
	require.Contains(t, d.Reason, "no replanner configured")

	// A transport error is returned, not hidden.
	boom := errors.New("503")
	_, err = nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: req.Plan, Now: time.Now()}, nodes.PartialReplan{Model: &scriptedModel{err: boom}}, ts)
	require.ErrorIs(t, err, boom)
}

// An empty remaining plan is not completion (seed 003 §4.4: "计划列表为空只表示没有
// 剩余条目还需要检查有没有遗漏工作"): a plan whose last step shows the route is
// blocked is revised, not finished.
func TestBlockedRouteInTheLastRoundIsNotAFinish(t *testing.T) {
	t.Parallel()
	c := delivery.New()

	// Decide alone.
	p := deliveryPlan(t, c)
	p.Steps = p.Steps[:2] // order → stock_a, nothing after
	ex := &nodes.Executor{Tools: c.Tools(), Checker: c.Checker()}
	for _, id := range []string{"order", "stock_a"} {
		s, _ := p.Step(id)
		o := ex.Run(t.Context(), s, p.Results())
		p = nodes.ApplyOutcomes(p, o)
		if id == "stock_a" {
			require.True(t, o.Blocked)
			d := nodes.Decide(nodes.RoundInput{Plan: p, Outcomes: []nodes.StepOutcome{o}, Now: c.Now})
			require.Equal(t, nodes.ActionRevise, d.Action, d.Reason)
		}
	}

	// Through the graph: the user's alternatives are never looked for.
	c = delivery.New()
	cfg := c.AgentConfig()
	tmpl := c.Template()
	cfg.Planner = plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
		p, err := tmpl.Build(req)
		p.Steps = p.Steps[:2]
		return p, nodes.PlanInfo{Source: "test"}, err
	})
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Contains(t, out.Answer(), "Recommendation: switch to warehouse B, standard shipping")
}

// Seed 001 "三种策略的成本对比": incremental fix — 0 LLM calls, 100% of the
// progress kept. With a model that fails on any call, an unknown tool is
// still repaired and the completed step keeps its result and evidence.
func TestIncrementalFixMakesNoModelCall(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "summarize")
	m := &scriptedModel{err: errors.New("the model must not be called")}
	p := plan.Plan{Goal: "g", Constraints: []string{"c"}, Steps: []plan.Step{
		done(st("a", "search", `"go"`), "3 hits", "search(go) → 3 hits"),
		{ID: "b", Description: "summarize", Tool: "sumarize", Input: json.RawMessage(`"{{a.result}}"`), DependsOn: []string{"a"},
			Status: plan.StatusFailed, Error: `unknown tool "sumarize"`},
		st("c", "", "", "b"),
	}}
	r := nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}, Full: nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}}
	d, err := nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: p, Outcomes: []nodes.StepOutcome{{StepID: "b", Status: plan.StatusFailed, ErrKind: plan.ErrKindUnknownTool}}}, r, ts)
	require.NoError(t, err)
	require.Equal(t, nodes.ActionRevise, d.Action)
	require.Equal(t, "adaptive:incremental", d.Info.Strategy)
	require.Zero(t, d.Info.ModelCalls)
	require.Zero(t, m.calls())
	b, _ := d.Plan.Step("b")
	require.Equal(t, "summarize", b.Tool)
	require.Equal(t, plan.StatusPending, b.Status)
	a, _ := d.Plan.Step("a")
	require.Equal(t, done(st("a", "search", `"go"`), "3 hits", "search(go) → 3 hits"), a)
	require.Equal(t, []string{"c"}, d.Plan.Constraints)
}

// Seed 001 AdaptiveReplanner.choose: known fixable errors → incremental;
// late failure (> 70%) → partial; early failure (< 30%) → full; otherwise
// partial. And each strategy's model-call cost: partial 1, full 1.
func TestAdaptiveReplannerChoiceAndCost(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "fetch")
	newPlan := `{"steps":[{"id":"n1","description":"search again","tool":"search","input":"go","depends_on":[]},` +
		`{"id":"n2","description":"answer","tool":"","depends_on":["n1"]}]}`
	mk := func(completed, total int) plan.Plan {
		p := plan.Plan{Goal: "g", Constraints: []string{"query only"}}
		for i := range total {
			id := string(rune('a' + i))
			s := st(id, "search", `"x"`)
			if i > 0 {
				s.DependsOn = []string{string(rune('a' + i - 1))}
			}
			switch {
			case i < completed:
				s = done(s, "r"+id, "e"+id)
			case i == completed:
				s.Status, s.Error = plan.StatusFailed, "service unavailable"
			}
			p.Steps = append(p.Steps, s)
		}
		return p
	}
	tests := []struct {
		name       string
		completed  int
		total      int
		strategy   string
		keptPrefix []string
	}{
		{"early failure → full replan, completed work still kept", 0, 10, "adaptive:full", nil},
		{"late failure → partial replan", 8, 10, "adaptive:partial:model", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"middle failure → partial replan", 5, 10, "adaptive:partial:model", []string{"a", "b", "c", "d", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{replies: []string{newPlan}}
			r := nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}, Full: nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}}
			p := mk(tt.completed, tt.total)
			d, err := nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: p}, r, ts)
			require.NoError(t, err)
			require.Equal(t, nodes.ActionRevise, d.Action, d.Reason)
			require.Equal(t, tt.strategy, d.Info.Strategy)
			require.Equal(t, 1, d.Info.ModelCalls)
			require.Equal(t, tt.keptPrefix, d.Info.Kept)
			for _, id := range tt.keptPrefix {
				s, ok := d.Plan.Step(id)
				require.True(t, ok)
				require.Equal(t, plan.StatusCompleted, s.Status)
				require.Equal(t, []string{"e" + id}, s.Evidence)
			}
			require.Equal(t, []string{"query only"}, d.Plan.Constraints, "constraints are never relaxed")
		})
	}
}

// Issue: "completed steps and evidence never dropped silently; user
// constraints never relaxed" — a revision that rewrites a constraint or
// drops evidence is refused, even when the rest of it is fine.
func TestRevisionMayNotRelaxAConstraintOrDropEvidence(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	p := deliveryPlan(t, c)
	ex := &nodes.Executor{Tools: ts, Checker: c.Checker()}
	for _, id := range []string{"order", "stock_a"} {
		s, _ := p.Step(id)
		p = nodes.ApplyOutcomes(p, ex.Run(t.Context(), s, p.Results()))
	}
	good, err := c.ReplanTemplate(nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "stock_a"}})
	require.NoError(t, err)
	tests := []struct {
		name   string
		mutate func(p *plan.Plan)
		want   string
	}{
		{"cost cap relaxed", func(p *plan.Plan) { p.Constraints[2] = "extra total cost at most 40" }, `constraint dropped or altered: "extra total cost at most 20"`},
		{"query-only dropped", func(p *plan.Plan) { p.Constraints = p.Constraints[:3] }, `constraint dropped or altered: "query only: change nothing"`},
		{"evidence dropped", func(p *plan.Plan) { p.Steps[1].Evidence = nil }, "evidence dropped"},
		{"blocked finding rewritten", func(p *plan.Plan) { p.Steps[1].Result = `{"warehouse":"A","available":1}` }, "completed step altered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			strategy := nodes.PartialReplan{Template: func(req nodes.ReplanRequest) ([]plan.Step, error) { return good, nil }}
			bad := replannerFunc(func(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
				np, info, err := strategy.Replan(ctx, req)
				tt.mutate(&np)
				return np, info, err
			})
			_, _, err := nodes.Revise(t.Context(), bad, nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "stock_a"}, Tools: ts}, plan.ReadOnlyGuard(ts))
			require.ErrorIs(t, err, nodes.ErrRevisionRejected)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestDecideChecksCountersAgainstTheWorkLeft(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Steps: []plan.Step{done(st("a", "t", ""), "ra"), st("answer", "", "", "a")}}
	b := nodes.Budget{MaxToolCalls: 1, MaxModelCalls: 1, MaxRoundsWithoutProgress: -1}
	u := nodes.Usage{ToolCalls: 1, ModelCalls: 1}
	now := time.Unix(1000, 0)
	d := nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now})
	require.Equal(t, nodes.ActionStop, d.Action, "without Needs every spent counter stops")
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &nodes.CallNeeds{}})
	require.Equal(t, nodes.ActionContinue, d.Action, d.Reason)
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &nodes.CallNeeds{ModelCalls: true}})
	require.Equal(t, nodes.ActionStop, d.Action)
	require.Equal(t, nodes.BudgetModelCalls, d.Stop.Budget)
	b.MaxWall = time.Second
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: nodes.Usage{Wall: time.Hour}, Now: now, Needs: &nodes.CallNeeds{}})
	require.Equal(t, nodes.BudgetWall, d.Stop.Budget, "the wall-time budget stops as before")
}

func TestAdaptiveReplannerAsksTheModelWhenIncrementalFixCannotSupplyAMissingField(t *testing.T) {
	t.Parallel()
	step := st("weather", "search", `{"city":"Paris"}`, "a")
	req, ts := failedPlan(plan.ErrKindBadInput, step)
	req.Trigger.Error = `invalid input: missing required field "date"`
	m := &scriptedModel{replies: []string{`{"steps":[{"id":"weather2","description":"weather on the date","tool":"search","input":{"city":"Paris","date":"2024-06-07"},"depends_on":["a"]},{"id":"z","description":"answer","tool":"","input":{},"depends_on":["weather2"]}]}`}}
	ar := nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}}
	p, info, err := nodes.Revise(t.Context(), ar, req)
	require.NoError(t, err)
	require.Equal(t, "adaptive:partial:model", info.Strategy)
	require.Len(t, info.Failed, 1)
	require.Equal(t, "incremental", info.Failed[0].Strategy)
	require.Equal(t, 1, m.calls(), "the model was asked")
	w, ok := p.Step("weather2")
	require.True(t, ok)
	require.JSONEq(t, `{"city":"Paris","date":"2024-06-07"}`, string(w.Input), "an object, not \"Paris\"")
	require.NoError(t, plan.Validate(p, ts))
}
