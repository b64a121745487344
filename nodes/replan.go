package nodes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// Action is the replan node's decision after a round.
type Action string

// Actions. Stop is a budget stop (Decision.Stop names the budget); Blocked
// means the plan cannot go on and no strategy could revise it.
const (
	ActionContinue Action = "continue"
	ActionRevise   Action = "revise"
	ActionFinish   Action = "finish"
	ActionBlocked  Action = "blocked"
	ActionStop     Action = "stop"
)

// TriggerKind says what made a revision necessary.
type TriggerKind string

// Trigger kinds.
const (
	TriggerBlocked TriggerKind = "blocked" // a step succeeded and showed the route is blocked
	TriggerFailed  TriggerKind = "failed"  // a step failed
	TriggerStuck   TriggerKind = "stuck"   // pending steps can never become ready
)

// Trigger is the event a revision answers.
type Trigger struct {
	Kind        TriggerKind    `json:"kind"`
	StepID      string         `json:"step_id"`
	Tool        string         `json:"tool,omitempty"`
	ErrKind     plan.ErrorKind `json:"error_kind,omitempty"`
	Error       string         `json:"error,omitempty"`
	BlockReason string         `json:"block_reason,omitempty"`
	Impact      string         `json:"impact,omitempty"`
}

// Summary renders the trigger in one line.
func (t Trigger) Summary() string {
	switch t.Kind {
	case TriggerBlocked:
		s := "succeeded and showed the route is blocked: " + CapOutput(t.BlockReason, 0)
		if t.Impact != "" {
			s += " (impact: " + CapOutput(t.Impact, 0) + ")"
		}
		return s
	case TriggerFailed:
		return fmt.Sprintf("failed (%s): %s", t.ErrKind, CapOutput(t.Error, 0))
	}
	return "cannot run: " + CapOutput(t.Error, 0)
}

// roundInput is what the replan node sees after an execution round.
type roundInput struct {
	Plan     plan.Plan     // with the round's outcomes applied
	Outcomes []StepOutcome // the round's outcomes
	Budget   Budget
	Usage    Usage // including the round (see Usage.EndRound)
	Now      time.Time
	// Needs, optional, says which calls the work left needs: the steps
	// not completed or skipped, and the answer. With it, a spent
	// MaxToolCalls or MaxModelCalls stops the run only when that work needs
	// the budget; without it, decide cannot tell, and any spent counter
	// stops the run (Budget.Check). The agent sets it: tool calls for a
	// step that names a tool or runs as a ReAct step, model calls for a
	// ReAct step or a Responder other than a TemplateResponder.
	Needs *callNeeds
}

// Decision is the replan node's output.
type Decision struct {
	Action  Action      `json:"action"`
	Reason  string      `json:"reason"`
	Trigger *Trigger    `json:"trigger,omitempty"`
	Stop    *StopReason `json:"stop,omitempty"`
	// Plan and Info are set when Action is revise.
	Plan *plan.Plan  `json:"plan,omitempty"`
	Info *ReplanInfo `json:"info,omitempty"`
}

// decide chooses what follows a round, without calling anything:
//
//   - finish when every step is completed or skipped and no step of the
//     round showed the route is blocked (a finished plan whose last round
//     found its premise gone has not answered the request);
//   - stop when a budget is spent (Budget.Check), naming it — a spent
//     tool-call or model-call counter only when the work left needs it,
//     when roundInput.Needs says what it needs;
//   - revise when a step showed the route is blocked, a step failed, or
//     pending steps can never run (a dependency failed or does not exist) —
//     or stop, when one more replan would exceed MaxReplans;
//   - continue when steps are ready;
//   - blocked otherwise.
func decide(in roundInput) Decision {
	p := in.Plan
	t := findTrigger(in)
	if p.Done() && t == nil {
		return Decision{Action: ActionFinish, Reason: "every step is completed or skipped"}
	}
	need := callNeeds{ToolCalls: true, ModelCalls: true}
	if in.Needs != nil {
		need = *in.Needs
	}
	if stop := in.Budget.check(in.Usage, in.Now, need); stop != nil {
		return Decision{Action: ActionStop, Reason: stop.Error(), Stop: stop}
	}
	if t != nil {
		if stop := in.Budget.CanReplan(in.Usage); stop != nil {
			return Decision{Action: ActionStop, Reason: fmt.Sprintf("step %q needs a replan, but %s", t.StepID, stop.Error()), Stop: stop, Trigger: t}
		}
		return Decision{Action: ActionRevise, Reason: fmt.Sprintf("step %q %s", t.StepID, t.Summary()), Trigger: t}
	}
	if len(p.Ready()) > 0 {
		return Decision{Action: ActionContinue, Reason: fmt.Sprintf("%d step(s) ready", len(p.Ready()))}
	}
	if len(p.Steps) == 0 {
		return Decision{Action: ActionBlocked, Reason: "the plan has no steps"}
	}
	return Decision{Action: ActionBlocked, Reason: "no step is ready and none failed"}
}

func findTrigger(in roundInput) *Trigger {
	for _, o := range in.Outcomes {
		if o.Blocked && o.Status == plan.StatusCompleted {
			return &Trigger{Kind: TriggerBlocked, StepID: o.StepID, Tool: o.Tool, BlockReason: o.BlockReason, Impact: o.Impact}
		}
	}
	for _, s := range in.Plan.Steps {
		if s.Status == plan.StatusFailed {
			t := &Trigger{Kind: TriggerFailed, StepID: s.ID, Tool: s.Tool, Error: s.Error, ErrKind: plan.ClassifyErrorText(s.Error)}
			for _, o := range in.Outcomes {
				if o.StepID == s.ID && o.ErrKind != "" {
					t.ErrKind = o.ErrKind
				}
			}
			return t
		}
	}
	if in.Plan.Stuck() {
		st := in.Plan.Results()
		for _, s := range in.Plan.Steps {
			if cmp.Or(s.Status, plan.StatusPending) != plan.StatusPending {
				continue
			}
			for _, d := range s.DependsOn {
				if ds, ok := st[d]; !ok || ds.Status == plan.StatusFailed {
					why := "does not exist"
					if ok {
						why = "was " + string(ds.Status)
					}
					return &Trigger{Kind: TriggerStuck, StepID: s.ID, Tool: s.Tool, Error: fmt.Sprintf("dependency %q %s", d, why)}
				}
			}
		}
	}
	return nil
}

// ErrNoFix is returned by a strategy that cannot handle the trigger; the
// adaptive replanner then tries the next one.
var ErrNoFix = errors.New("nodes: no fix for this failure")

// ErrRevisionRejected is matched by the error of a revision that broke an
// invariant: it dropped completed work, relaxed a constraint, changed the
// goal, failed validation or a guard.
var ErrRevisionRejected = errors.New("nodes: revision rejected")

// ReplanRequest is what a replan strategy works from.
type ReplanRequest struct {
	Plan    plan.Plan // current plan, outcomes applied; Goal and Constraints included
	Trigger Trigger
	Tools   []tools.Tool
	// Guards are the guards a revision must pass, set by Revise. A strategy
	// that chooses among others, like AdaptiveReplanner, checks each
	// candidate with checkRevision and moves on when it is rejected; the
	// model-backed PartialReplan and FullReplan (through its planner's
	// PlanRequest.Guards) ask the model again when a guard refuses a plan.
	Guards []plan.Guard
}

// ReplanInfo says what a revision did.
type ReplanInfo struct {
	Strategy   string   `json:"strategy"`
	ModelCalls int      `json:"model_calls"`
	Tokens     Tokens   `json:"tokens"`
	Kept       []string `json:"kept,omitempty"`    // completed or skipped steps carried over
	Removed    []string `json:"removed,omitempty"` // steps no longer in the plan (never completed ones)
	Added      []string `json:"added,omitempty"`
	Changed    []string `json:"changed,omitempty"` // same id, different tool/input/dependencies
	// Failed are the strategies an AdaptiveReplanner tried before Strategy,
	// or all it tried when none succeeded, with why each failed.
	Failed []StrategyFailure `json:"failed,omitempty"`
}

// StrategyFailure is a replan strategy that could not revise the plan: it
// had no fix (ErrNoFix), its plans were rejected by validation
// (ErrPlanRejected), or its revision broke an invariant or a guard
// (ErrRevisionRejected, Rejected true).
type StrategyFailure struct {
	Strategy string `json:"strategy"`
	Rejected bool   `json:"rejected,omitempty"`
	Reason   string `json:"reason"`
}

// Replanner revises a plan.
type Replanner interface {
	Replan(ctx context.Context, req ReplanRequest) (plan.Plan, ReplanInfo, error)
}

// checkRevision enforces the replan invariants and returns a *plan.ValidationError
// (matching plan.ErrInvalid and ErrRevisionRejected) listing every violation:
// the goal is unchanged; every constraint of old is in revised, verbatim;
// every completed step of old is in revised, still completed, with the same
// tool, input and result and all its evidence; revised passes plan.Validate and
// every guard.
func checkRevision(old, revised plan.Plan, ts []tools.Tool, guards ...plan.Guard) error {
	var probs []plan.Problem
	if revised.Goal != old.Goal {
		probs = append(probs, plan.Problem{Kind: plan.ProblemConstraint, Message: fmt.Sprintf("goal changed from %q to %q", old.Goal, revised.Goal)})
	}
	for _, c := range old.Constraints {
		if !slices.Contains(revised.Constraints, c) {
			probs = append(probs, plan.Problem{Kind: plan.ProblemConstraint, Message: fmt.Sprintf("constraint dropped or altered: %q", c)})
		}
	}
	for _, s := range old.Steps {
		if s.Status != plan.StatusCompleted {
			continue
		}
		n, ok := revised.Step(s.ID)
		switch {
		case !ok:
			probs = append(probs, plan.Problem{StepID: s.ID, Kind: plan.ProblemDroppedWork, Message: "completed step dropped"})
		case n.Status != plan.StatusCompleted || n.Result != s.Result || n.Tool != s.Tool || string(n.Input) != string(s.Input):
			probs = append(probs, plan.Problem{StepID: s.ID, Kind: plan.ProblemDroppedWork, Message: "completed step altered (status, tool, input or result)"})
		default:
			for _, e := range s.Evidence {
				if !slices.Contains(n.Evidence, e) {
					probs = append(probs, plan.Problem{StepID: s.ID, Kind: plan.ProblemDroppedWork, Message: fmt.Sprintf("evidence dropped: %q", text.Truncate(e, 80))})
				}
			}
		}
	}
	probs = append(probs, plan.Check(revised, ts)...)
	for _, g := range guards {
		probs = append(probs, g(revised)...)
	}
	if len(probs) > 0 {
		return &revisionError{plan.ValidationError{Problems: probs}}
	}
	return nil
}

// revisionError is the *plan.ValidationError of a rejected revision.
type revisionError struct{ plan.ValidationError }

// Error implements error.
func (e *revisionError) Error() string {
	return "nodes: revision rejected: " + e.ValidationError.Error()
}

// Is matches ErrRevisionRejected and plan.ErrInvalid.
func (e *revisionError) Is(target error) bool {
	return target == ErrRevisionRejected || target == plan.ErrInvalid
}

// As exposes the embedded *plan.ValidationError to errors.As.
func (e *revisionError) As(target any) bool {
	if pe, ok := target.(**plan.ValidationError); ok {
		*pe = &e.ValidationError
		return true
	}
	return false
}

// Revise runs a strategy and enforces the replan invariants on its result
// (the goal is unchanged; every constraint stays, verbatim; every completed
// step stays completed with the same tool, input, result and evidence; the
// revision passes plan.Validate and every guard), returning a
// *plan.ValidationError matching ErrRevisionRejected that lists every
// violation; it also fills Kept/Removed/Added/Changed in the info. The strategy
// sees the guards in req.Guards.
func Revise(ctx context.Context, r Replanner, req ReplanRequest, guards ...plan.Guard) (plan.Plan, ReplanInfo, error) {
	req.Guards = guards
	p, info, err := r.Replan(ctx, req)
	if err != nil {
		return plan.Plan{}, info, err
	}
	if err := checkRevision(req.Plan, p, req.Tools, guards...); err != nil {
		return plan.Plan{}, info, err
	}
	info.Kept, info.Removed, info.Added, info.Changed = diffPlans(req.Plan, p)
	p = keepReplaced(req.Plan, p)
	return p, info, nil
}

// keepReplaced returns revised with old's replaced steps, and old's failed
// steps the revision removed, in Plan.Replaced.
func keepReplaced(old, revised plan.Plan) plan.Plan {
	var add []plan.Step
	for _, s := range old.Replaced {
		if !slices.ContainsFunc(revised.Replaced, func(r plan.Step) bool { return r.ID == s.ID && r.Error == s.Error }) {
			add = append(add, s.Clone())
		}
	}
	for _, s := range old.Steps {
		if _, ok := revised.Step(s.ID); !ok && s.Status == plan.StatusFailed {
			add = append(add, s.Clone())
		}
	}
	if len(add) == 0 {
		return revised
	}
	revised = revised.Clone()
	revised.Replaced = append(revised.Replaced, add...)
	return revised
}

func diffPlans(old, revised plan.Plan) (kept, removed, added, changed []string) {
	for _, s := range old.Steps {
		n, ok := revised.Step(s.ID)
		switch {
		case !ok:
			removed = append(removed, s.ID)
		case s.Status == plan.StatusCompleted || s.Status == plan.StatusSkipped:
			kept = append(kept, s.ID)
		case n.Tool != s.Tool || string(n.Input) != string(s.Input) || !slices.Equal(n.DependsOn, s.DependsOn):
			changed = append(changed, s.ID)
		}
	}
	for _, s := range revised.Steps {
		if _, ok := old.Step(s.ID); !ok {
			added = append(added, s.ID)
		}
	}
	return
}

// replanRound is the replan node in one call: decide, and when the decision
// is revise, Revise with r. A strategy that cannot help (ErrNoFix) or whose
// revisions are rejected turns the decision into blocked, with the reason
// (with an AdaptiveReplanner, only once every strategy failed; the reasons
// are also in Decision.Info.Failed); any other error (a model transport
// error) is returned. The caller adds Decision.Info.ModelCalls and one
// replan to its Usage.
func replanRound(ctx context.Context, in roundInput, r Replanner, ts []tools.Tool, guards ...plan.Guard) (Decision, error) {
	d := decide(in)
	if d.Action != ActionRevise {
		return d, nil
	}
	if r == nil {
		d.Action, d.Reason = ActionBlocked, d.Reason+"; no replanner configured"
		return d, nil
	}
	p, info, err := Revise(ctx, r, ReplanRequest{Plan: in.Plan, Trigger: *d.Trigger, Tools: ts}, guards...)
	d.Info = &info
	switch {
	case err == nil:
		d.Plan = &p
		return d, nil
	case cannotRevise(err):
		d.Action, d.Reason = ActionBlocked, fmt.Sprintf("%s; could not revise: %v", d.Reason, err)
		return d, nil
	}
	return d, err
}

// cannotRevise reports whether err says a strategy could not revise the plan
// (no fix, or its revisions rejected), as opposed to a failure to ask (a
// model transport error, a spent budget, a cancelled context).
func cannotRevise(err error) bool {
	return errors.Is(err, ErrNoFix) || errors.Is(err, ErrRevisionRejected) || errors.Is(err, ErrPlanRejected)
}
