package nodes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// ErrNoTemplate is returned by TemplatePlanner when no template matches the goal.
var ErrNoTemplate = errors.New("nodes: no plan template matches the goal")

// ErrPlanRejected is matched (errors.Is) by a *RejectedError: the model's
// plans were still invalid, refused by a guard or below the threshold after
// every attempt.
var ErrPlanRejected = errors.New("nodes: plan rejected")

// PlanRequest is what a planner plans for.
type PlanRequest struct {
	Goal        string   `json:"goal"`
	Constraints []string `json:"constraints,omitempty"`
	// Context is what is already known (e.g. completed work, for a full replan).
	Context string `json:"context,omitempty"`
	// Guards, optional, are checks the plan must pass besides validation,
	// set by the caller: the agent's planner node passes AgentConfig.Guards,
	// FullReplan the guards of its ReplanRequest. LLMPlanner treats a
	// guard's objection like a validation problem: it asks the model again
	// with the objection listed. A planner that ignores them is still
	// checked by the agent before anything runs.
	Guards []plan.Guard `json:"-"`
}

// PlanInfo says how a plan was made.
type PlanInfo struct {
	Source     string           `json:"source"` // "template:<name>" or "model"
	Attempts   int              `json:"attempts"`
	ModelCalls int              `json:"model_calls"`
	Tokens     Tokens           `json:"tokens"`
	Score      plan.Score       `json:"score"`
	Rejected   [][]plan.Problem `json:"rejected,omitempty"` // the problems of each rejected attempt
}

// Planner turns a goal into a plan.
type Planner interface {
	Plan(ctx context.Context, req PlanRequest) (plan.Plan, PlanInfo, error)
}

// RejectedError is returned when every attempt produced an unusable plan.
type RejectedError struct {
	Attempts int
	Problems []plan.Problem // of the last attempt
}

// Error implements error.
func (e *RejectedError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return fmt.Sprintf("nodes: plan rejected after %d attempts: %s", e.Attempts, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrPlanRejected) true.
func (e *RejectedError) Is(target error) bool { return target == ErrPlanRejected }

// LLMPlanner asks a model for a JSON plan, parses, validates, checks it
// against the request's Guards and scores it, and asks again with the
// problems (a guard's objections included) listed until a plan is valid, no
// guard refuses it and it scores at least Threshold, at most MaxAttempts
// times.
type LLMPlanner struct {
	Model       llms.Model
	Tools       []tools.Tool
	MaxAttempts int     // default 3
	Threshold   float64 // default 0.7
	Options     []llms.CallOption
	// Prompt, optional, replaces the package's planner prompt; it is
	// executed with a PlannerPromptData. (The package's prompts call the
	// template functions json and indent; a template of one's own
	// defines what it calls, with template.Funcs.)
	Prompt *template.Template
}

// defaultThreshold is the score a model plan needs when LLMPlanner.Threshold is zero.
const defaultThreshold = 0.7

// Plan implements Planner. A model error (transport, context) ends it at once,
// wrapped; bad plans, and plans a guard of req.Guards refuses, are re-asked;
// after MaxAttempts it returns a *RejectedError listing the last problems.
// PlanInfo counts calls and tokens in every case.
func (pl *LLMPlanner) Plan(ctx context.Context, req PlanRequest) (plan.Plan, PlanInfo, error) {
	info := PlanInfo{Source: "model"}
	data := PlannerPromptData{Goal: req.Goal, Constraints: req.Constraints, Context: req.Context, Tools: infos(pl.Tools), Schema: plan.Schema}
	p, err := askForPlan(ctx, pl.Model, pl.MaxAttempts, pl.Threshold, pl.Options, &info,
		func(problems []plan.Problem, previous string) (string, error) {
			data.Problems, data.Previous = problems, previous
			return render(cmp.Or(pl.Prompt, plannerTemplate), data)
		},
		func(p plan.Plan) plan.Score {
			return guardedScore(normalizeNew(p, req), pl.Tools, req.Guards)
		})
	if err != nil {
		return plan.Plan{}, info, err
	}
	return normalizeNew(p, req), info, nil
}

// normalizeNew makes a model's plan a fresh plan for req: the request's goal
// and constraints, every step pending with no result.
func normalizeNew(p plan.Plan, req PlanRequest) plan.Plan {
	p = p.Clone()
	if req.Goal != "" {
		p.Goal = req.Goal
	}
	p.Constraints = slices.Clone(req.Constraints)
	for i := range p.Steps {
		s := &p.Steps[i]
		s.Status, s.Result, s.Error, s.Evidence = plan.StatusPending, "", "", nil
	}
	return p
}

// guardedScore is plan.ScoreOf with every guard's objections added to the
// problems (kind constraint, so the score is not Valid and the plan is asked
// for again).
func guardedScore(p plan.Plan, ts []tools.Tool, guards []plan.Guard) plan.Score {
	s := plan.ScoreOf(p, ts)
	for _, g := range guards {
		s.Problems = append(s.Problems, g(p)...)
	}
	return s
}

// askForPlan is the ask → parse → score → re-ask loop shared by the planner
// and the partial replanner.
func askForPlan(ctx context.Context, model llms.Model, attempts int, threshold float64, opts []llms.CallOption,
	info *PlanInfo, prompt func(problems []plan.Problem, previous string) (string, error), score func(plan.Plan) plan.Score,
) (plan.Plan, error) {
	if model == nil {
		return plan.Plan{}, errors.New("nodes: no model configured")
	}
	if attempts <= 0 {
		attempts = 3
	}
	if threshold <= 0 {
		threshold = defaultThreshold
	}
	var problems []plan.Problem
	var previous string
	for a := 1; a <= attempts; a++ {
		msg, err := prompt(problems, previous)
		if err != nil {
			return plan.Plan{}, fmt.Errorf("nodes: render prompt: %w", err)
		}
		reply, calls, tok, err := generate(ctx, model, msg, opts...)
		// Every call made counts, a ResilientModel's retries included; a
		// refused one was not made.
		info.ModelCalls += calls
		info.Tokens = info.Tokens.Add(tok)
		if calls == 0 && errors.Is(err, ErrModelBudget) {
			// Refused, not made: not an attempt.
			return plan.Plan{}, fmt.Errorf("model call %d refused: %w", a, err)
		}
		info.Attempts = a
		if err != nil {
			return plan.Plan{}, fmt.Errorf("model call %d: %w", a, err)
		}
		p, err := plan.Parse(reply)
		if err != nil {
			problems = []plan.Problem{{Kind: plan.ProblemParse, Message: err.Error()}}
		} else {
			s := score(p)
			info.Score = s
			if s.Passes(threshold) {
				return p, nil
			}
			problems = s.Problems
			if s.Valid() {
				problems = append(problems, plan.Problem{Kind: plan.ProblemIncomplete, Message: fmt.Sprintf("plan scored %.2f, below the threshold %.2f", s.Overall, threshold)})
			}
		}
		info.Rejected = append(info.Rejected, problems)
		previous = text.Truncate(reply, 4000)
	}
	return plan.Plan{}, &RejectedError{Attempts: attempts, Problems: problems}
}

// generate makes one single-prompt model call (callModel) and returns the
// first choice's text, the model calls of the budget it made (a
// ResilientModel's attempts) and the call's tokens. It returns
// ErrModelBudget, without calling the model, when ctx's model-call
// allowance is spent: that call was not made and is not counted.
func generate(ctx context.Context, model llms.Model, prompt string, opts ...llms.CallOption) (string, int, Tokens, error) {
	resp, calls, err := callModel(ctx, model, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, prompt)}, opts...)
	if err != nil {
		return "", calls, Tokens{}, err
	}
	if resp == nil {
		return "", calls, Tokens{}, errors.New("empty response from model")
	}
	tok := tokensOf(resp)
	if len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return "", calls, tok, errors.New("empty response from model")
	}
	return resp.Choices[0].Content, calls, tok, nil
}

// PlanTemplate is a plan written by hand for a kind of goal.
type PlanTemplate struct {
	Name string
	// Keywords match when every one appears in the goal (case-insensitive).
	Keywords []string
	// Match, if set, is used instead of Keywords.
	Match func(goal string) bool
	// Build returns the plan for a request that matched.
	Build func(req PlanRequest) (plan.Plan, error)
}

func (t PlanTemplate) matches(goal string) bool {
	if t.Match != nil {
		return t.Match(goal)
	}
	if len(t.Keywords) == 0 {
		return false
	}
	g := strings.ToLower(goal)
	for _, k := range t.Keywords {
		if !strings.Contains(g, strings.ToLower(k)) {
			return false
		}
	}
	return true
}

// TemplatePlanner plans without a model: the first template that matches
// the goal builds the plan, which is validated against Tools (if set).
type TemplatePlanner struct {
	Templates []PlanTemplate
	Tools     []tools.Tool
}

// Plan implements Planner; it returns ErrNoTemplate when nothing matches.
func (tp *TemplatePlanner) Plan(_ context.Context, req PlanRequest) (plan.Plan, PlanInfo, error) {
	for _, t := range tp.Templates {
		if !t.matches(req.Goal) {
			continue
		}
		info := PlanInfo{Source: "template:" + t.Name}
		p, err := t.Build(req)
		if err != nil {
			return plan.Plan{}, info, fmt.Errorf("nodes: template %q: %w", t.Name, err)
		}
		p = normalizeNew(p, req)
		info.Score = plan.ScoreOf(p, tp.Tools)
		if err := plan.Validate(p, tp.Tools); err != nil {
			return plan.Plan{}, info, fmt.Errorf("nodes: template %q: %w", t.Name, err)
		}
		return p, info, nil
	}
	return plan.Plan{}, PlanInfo{}, ErrNoTemplate
}

// AdaptivePlanner tries templates first (zero model calls) and asks the
// model only when none matches.
type AdaptivePlanner struct {
	Templates *TemplatePlanner
	Model     Planner // typically *LLMPlanner; nil means templates only
}

// Plan implements Planner.
func (ap *AdaptivePlanner) Plan(ctx context.Context, req PlanRequest) (plan.Plan, PlanInfo, error) {
	if ap.Templates != nil {
		p, info, err := ap.Templates.Plan(ctx, req)
		if !errors.Is(err, ErrNoTemplate) {
			return p, info, err
		}
	}
	if ap.Model == nil {
		return plan.Plan{}, PlanInfo{}, ErrNoTemplate
	}
	return ap.Model.Plan(ctx, req)
}
