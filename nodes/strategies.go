package nodes

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/llms"
)

// Fix repairs one failed step without a model: it returns the steps that
// replace it (the step itself, changed, possibly preceded by new steps), or
// false when it does not apply.
type Fix func(req ReplanRequest, failed plan.Step) ([]plan.Step, bool)

// IncrementalFix repairs known error kinds with no model call, keeping the
// rest of the plan as it is:
//
//   - unknown tool: the step's tool becomes the closest available name;
//   - bad input: a string input holding JSON with trailing commas is
//     repaired, and a one-field object wrapping an object ({"input":
//     {...}}) is replaced by the inner object; an object input is never
//     stripped to a string or a number, so a step missing a field goes to
//     the next strategy (under AdaptiveReplanner, a model replan);
//   - missing file: with FileFinder set (a tool that finds a file by name),
//     a step is inserted that looks the file up by its base name, and the
//     failed step's "path"/"file"/"filename" field references its result.
//
// Extra fixes are tried first. It returns ErrNoFix when nothing applies.
type IncrementalFix struct {
	FileFinder string
	Extra      []Fix
}

// Replan implements Replanner.
func (f IncrementalFix) Replan(_ context.Context, req ReplanRequest) (plan.Plan, ReplanInfo, error) {
	info := ReplanInfo{Strategy: "incremental"}
	t := req.Trigger
	failed, ok := req.Plan.Step(t.StepID)
	if t.Kind != TriggerFailed || !ok {
		return plan.Plan{}, info, fmt.Errorf("%w: incremental fixes apply to failed steps only", ErrNoFix)
	}
	fixes := slices.Clone(f.Extra)
	switch t.ErrKind {
	case plan.ErrKindUnknownTool:
		fixes = append(fixes, fixUnknownTool)
	case plan.ErrKindBadInput:
		fixes = append(fixes, fixBadInput)
	case plan.ErrKindMissingFile:
		if f.FileFinder != "" {
			fixes = append(fixes, f.fixMissingFile)
		}
	}
	for _, fix := range fixes {
		repl, ok := fix(req, failed.Clone())
		if !ok {
			continue
		}
		p := req.Plan.Clone()
		i := p.Index(failed.ID)
		for k := range repl {
			if repl[k].ID == failed.ID || p.Index(repl[k].ID) < 0 {
				repl[k].Status, repl[k].Result, repl[k].Error = plan.StatusPending, "", ""
			}
		}
		p.Steps = slices.Concat(p.Steps[:i], repl, p.Steps[i+1:])
		return p, info, nil
	}
	return plan.Plan{}, info, fmt.Errorf("%w: step %q failed with %s: %s", ErrNoFix, failed.ID, t.ErrKind, t.Error)
}

func fixUnknownTool(req ReplanRequest, s plan.Step) ([]plan.Step, bool) {
	c := plan.ClosestName(s.Tool, plan.ToolNames(req.Tools))
	if c == "" || c == s.Tool {
		return nil, false
	}
	s.Tool = c
	return []plan.Step{s}, true
}

var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

func fixBadInput(_ ReplanRequest, s plan.Step) ([]plan.Step, bool) {
	var str string
	if json.Unmarshal(s.Input, &str) == nil {
		t := strings.TrimSpace(str)
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			fixed := trailingComma.ReplaceAllString(t, "$1")
			if json.Valid([]byte(fixed)) && fixed != t {
				s.Input = json.RawMessage(fixed)
				return []plan.Step{s}, true
			}
		}
		return nil, false
	}
	// A one-field object wrapping an object ({"input": {...}}) is
	// unwrapped; any other object input is left as it is — never stripped
	// to a string: a tool taking an object wants one, and a missing field
	// is for a model to supply (the next strategy, see AdaptiveReplanner).
	var obj map[string]json.RawMessage
	if json.Unmarshal(s.Input, &obj) == nil && len(obj) == 1 {
		for _, v := range obj {
			var inner map[string]json.RawMessage
			if json.Unmarshal(v, &inner) != nil {
				return nil, false
			}
			s.Input = v
		}
		return []plan.Step{s}, true
	}
	return nil, false
}

func (f IncrementalFix) fixMissingFile(req ReplanRequest, s plan.Step) ([]plan.Step, bool) {
	if _, ok := plan.FindTool(req.Tools, f.FileFinder); !ok {
		return nil, false
	}
	var obj map[string]any
	if json.Unmarshal(s.Input, &obj) != nil {
		return nil, false
	}
	for _, key := range []string{"path", "file", "filename"} {
		p, ok := obj[key].(string)
		if !ok || strings.Contains(p, "{{") {
			continue
		}
		find := plan.Step{
			ID:          s.ID + "_find",
			Description: fmt.Sprintf("find the file %q that %s needs", path.Base(p), s.ID),
			Tool:        f.FileFinder,
			DependsOn:   slices.Clone(s.DependsOn),
		}
		for req.Plan.Index(find.ID) >= 0 {
			find.ID += "_"
		}
		find.Input, _ = json.Marshal(map[string]string{"name": path.Base(p)})
		obj[key] = "{{" + find.ID + ".result}}"
		in, err := text.CompactJSON(obj)
		if err != nil {
			return nil, false
		}
		s.Input = in
		s.DependsOn = append(s.DependsOn, find.ID)
		return []plan.Step{find, s}, true
	}
	return nil, false
}

// keptSteps returns the completed and skipped steps: work a revision keeps.
func keptSteps(p plan.Plan) []plan.Step {
	var out []plan.Step
	for _, s := range p.Steps {
		if s.Status == plan.StatusCompleted || s.Status == plan.StatusSkipped {
			out = append(out, s.Clone())
		}
	}
	return out
}

// PartialReplan keeps the completed (and skipped) steps with their results and
// evidence and replaces every other step: with Template's steps when set
// (zero model calls), else with steps the Model writes from the completed
// work, the trigger and the tools, re-asked with the problems listed like
// LLMPlanner — a guard of the request (ReplanRequest.Guards) refusing the
// revision is one of them. New steps that repeat a kept step (same id, tool
// and input) are dropped; other id clashes are problems the model must fix.
//
// The model's prompt shows at most OutputCap bytes of each completed
// step's result (0: 8,000 bytes), cut with a marker (CapOutput).
type PartialReplan struct {
	Template    func(req ReplanRequest) ([]plan.Step, error)
	Model       llms.Model
	MaxAttempts int
	Threshold   float64
	Options     []llms.CallOption
	OutputCap   int
	// Prompt, optional, replaces the package's replanner prompt; it is
	// executed with a ReplannerPromptData.
	Prompt *template.Template
}

// Replan implements Replanner.
func (r PartialReplan) Replan(ctx context.Context, req ReplanRequest) (plan.Plan, ReplanInfo, error) {
	kept := keptSteps(req.Plan)
	merge := func(steps []plan.Step) plan.Plan {
		p := plan.Plan{Goal: req.Plan.Goal, Constraints: slices.Clone(req.Plan.Constraints), Steps: slices.Clone(kept)}
		for _, s := range steps {
			if k, ok := p.Step(s.ID); ok && k.Tool == s.Tool && string(k.Input) == string(s.Input) {
				continue
			}
			s = s.Clone()
			s.Status, s.Result, s.Error, s.Evidence = plan.StatusPending, "", "", nil
			p.Steps = append(p.Steps, s)
		}
		return p
	}
	if r.Template != nil {
		info := ReplanInfo{Strategy: "partial:template"}
		steps, err := r.Template(req)
		if err != nil {
			return plan.Plan{}, info, err
		}
		return merge(steps), info, nil
	}
	info := ReplanInfo{Strategy: "partial:model"}
	var remaining []plan.Step
	for _, s := range req.Plan.Steps {
		if s.Status != plan.StatusCompleted && s.Status != plan.StatusSkipped {
			remaining = append(remaining, s)
		}
	}
	data := ReplannerPromptData{Goal: req.Plan.Goal, Constraints: req.Plan.Constraints, Completed: capSteps(kept, r.OutputCap), Remaining: remaining,
		Trigger: req.Trigger, Tools: infos(req.Tools), Schema: plan.Schema}
	var pi PlanInfo
	np, err := askForPlan(ctx, r.Model, r.MaxAttempts, r.Threshold, r.Options, &pi,
		func(problems []plan.Problem, previous string) (string, error) {
			data.Problems, data.Previous = problems, previous
			return render(cmp.Or(r.Prompt, replannerTemplate), data)
		},
		func(p plan.Plan) plan.Score { return guardedScore(merge(p.Steps), req.Tools, req.Guards) })
	info.ModelCalls, info.Tokens = pi.ModelCalls, pi.Tokens
	if err != nil {
		return plan.Plan{}, info, err
	}
	return merge(np.Steps), info, nil
}

// FullReplan plans again from the goal with Planner, telling it what was
// learned and passing on the request's Guards (PlanRequest.Guards, so an
// LLMPlanner re-asks when a guard refuses its plan). Completed steps are not
// thrown away: they stay in the plan, with their evidence, ahead of the new
// steps; a new step whose id clashes with a kept one is renamed (with its
// dependencies and references). The new steps are self-contained: they do
// not depend on the kept ones.
type FullReplan struct {
	Planner Planner
}

// Replan implements Replanner.
func (r FullReplan) Replan(ctx context.Context, req ReplanRequest) (plan.Plan, ReplanInfo, error) {
	info := ReplanInfo{Strategy: "full"}
	if r.Planner == nil {
		return plan.Plan{}, info, fmt.Errorf("%w: no planner for a full replan", ErrNoFix)
	}
	kept := keptSteps(req.Plan)
	var b strings.Builder
	for _, s := range kept {
		fmt.Fprintf(&b, "- %s (%s): %s\n", s.Description, s.Status, text.Truncate(s.Result, 300))
	}
	fmt.Fprintf(&b, "The previous plan was abandoned: step %q %s\n", req.Trigger.StepID, req.Trigger.Summary())
	np, pi, err := r.Planner.Plan(ctx, PlanRequest{Goal: req.Plan.Goal, Constraints: req.Plan.Constraints, Context: b.String(), Guards: req.Guards})
	info.ModelCalls, info.Tokens = pi.ModelCalls, pi.Tokens
	if err != nil {
		return plan.Plan{}, info, err
	}
	taken := map[string]bool{}
	for _, s := range kept {
		taken[s.ID] = true
	}
	p := plan.Plan{Goal: req.Plan.Goal, Constraints: slices.Clone(req.Plan.Constraints), Steps: kept}
	p.Steps = append(p.Steps, renameSteps(np.Steps, taken)...)
	return p, info, nil
}

// renameSteps renames steps whose ids are taken (suffix _2, _3, …),
// rewriting dependencies and references among the steps.
func renameSteps(steps []plan.Step, taken map[string]bool) []plan.Step {
	rename := map[string]string{}
	for _, s := range steps {
		if !taken[s.ID] {
			continue
		}
		for n := 2; ; n++ {
			id := fmt.Sprintf("%s_%d", s.ID, n)
			if !taken[id] && !slices.ContainsFunc(steps, func(o plan.Step) bool { return o.ID == id }) {
				rename[s.ID] = id
				taken[id] = true
				break
			}
		}
	}
	out := make([]plan.Step, len(steps))
	for i, s := range steps {
		s = s.Clone()
		if n, ok := rename[s.ID]; ok {
			s.ID = n
		}
		for j, d := range s.DependsOn {
			if n, ok := rename[d]; ok {
				s.DependsOn[j] = n
			}
		}
		if len(rename) > 0 && len(s.Input) > 0 {
			in := string(s.Input)
			for _, ref := range plan.FindRefs(in) {
				if n, ok := rename[ref.StepID]; ok {
					in = strings.ReplaceAll(in, ref.Raw, strings.Replace(ref.Raw, ref.StepID+".result", n+".result", 1))
				}
			}
			s.Input = json.RawMessage(in)
		}
		out[i] = s
	}
	return out
}

// AdaptiveReplanner picks a strategy by error kind and by how far the plan got:
// a failure IncrementalFix knows (unknown tool, bad input, missing file) goes
// to Incremental first; a blocked route goes to Partial (the completed
// findings are the reason to revise); otherwise a plan less than
// EarlyFraction (default 0.3) done goes to Full, and the rest to Partial.
//
// Each strategy's revision is checked against the invariants (see Revise;
// with the request's Guards) as soon as it is made. When the chosen strategy is nil, has no fix
// (ErrNoFix), or its revision is rejected (ErrRevisionRejected: an
// incremental fix onto a tool a guard refuses, say) or its plans are
// (ErrPlanRejected), the next one is tried (Partial, then Full), and the
// failure is recorded in ReplanInfo.Failed. Any other error (a model
// transport error, ErrModelBudget) ends the search. When every strategy
// fails, the error names each one with its reason and matches their errors.
type AdaptiveReplanner struct {
	Incremental   Replanner
	Partial       Replanner
	Full          Replanner
	EarlyFraction float64
}

// Choose returns the order in which strategies are tried for req, by name.
func (a AdaptiveReplanner) Choose(req ReplanRequest) []string {
	early := a.EarlyFraction
	if early <= 0 {
		early = 0.3
	}
	var order []string
	t := req.Trigger
	if t.Kind == TriggerFailed && (t.ErrKind == plan.ErrKindUnknownTool || t.ErrKind == plan.ErrKindBadInput || t.ErrKind == plan.ErrKindMissingFile) {
		order = append(order, "incremental")
	}
	if t.Kind != TriggerBlocked && req.Plan.Progress().Fraction() < early {
		order = append(order, "full", "partial")
	} else {
		order = append(order, "partial", "full")
	}
	return order
}

// Replan implements Replanner.
func (a AdaptiveReplanner) Replan(ctx context.Context, req ReplanRequest) (plan.Plan, ReplanInfo, error) {
	by := map[string]Replanner{"incremental": a.Incremental, "partial": a.Partial, "full": a.Full}
	var total ReplanInfo
	var errs []error
	for _, name := range a.Choose(req) {
		r := by[name]
		if r == nil {
			continue
		}
		p, info, err := r.Replan(ctx, req)
		total.ModelCalls += info.ModelCalls
		total.Tokens = total.Tokens.Add(info.Tokens)
		strategy := info.Strategy
		if strategy == "" {
			strategy = name
		}
		total.Strategy = "adaptive:" + strategy
		if err == nil {
			err = checkRevision(req.Plan, p, req.Tools, req.Guards...)
		}
		if err == nil {
			return p, total, nil
		}
		if !cannotRevise(err) {
			return plan.Plan{}, total, err
		}
		total.Failed = append(total.Failed, StrategyFailure{Strategy: strategy, Rejected: errors.Is(err, ErrRevisionRejected), Reason: err.Error()})
		errs = append(errs, err)
	}
	switch len(errs) {
	case 0:
		return plan.Plan{}, total, ErrNoFix
	case 1:
		return plan.Plan{}, total, errs[0]
	}
	return plan.Plan{}, total, &strategiesError{failed: total.Failed, errs: errs}
}

// strategiesError is the error of an AdaptiveReplanner whose strategies all
// failed: it names each with its reason and matches each one's error.
type strategiesError struct {
	failed []StrategyFailure
	errs   []error
}

// Error implements error.
func (e *strategiesError) Error() string {
	parts := make([]string, len(e.failed))
	for i, f := range e.failed {
		parts[i] = f.Strategy + ": " + f.Reason
	}
	return "every strategy failed: " + strings.Join(parts, "; ")
}

// Unwrap returns the strategies' errors, for errors.Is and errors.As.
func (e *strategiesError) Unwrap() []error { return e.errs }
