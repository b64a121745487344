package nodes

import (
	"context"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
)

// WithEagerSteps bounds an eager round to parallel steps at a time (0: no
// bound), and turns eager rounds back on after WithRoundByRound. Eager
// rounds are the default: each round runs as LLMCompiler's task fetching
// does, a step starting as soon as the steps it depends on have
// completed, not when the whole round has. A round then holds every
// pending step whose dependencies are completed, skipped, or in the round
// themselves (as many of them, in plan order, as the budgets have calls
// left: see Budget), and runs as one execute task that starts each step
// when it is ready. A step that fails or shows the route is blocked holds
// back the steps that depend on it, which stay pending for the replanner;
// the steps that do not go on.
//
// Every step's outcome is saved as it completes (graph.Durable, a pending
// write of the round's task), so a crash, an error or a Ctrl-C in the
// middle of a round resumes without running a finished step again — not
// its tool calls, not its model calls — and the round's outcomes, audit
// records and usage reach the state, in plan order, when the round ends.
// The Custom stream carries a StepEvent when each step starts and ends.
func WithEagerSteps(parallel int) AgentOption {
	return func(o *agentOptions) { o.rounds, o.parallel = false, max(parallel, 0) }
}

// WithRoundByRound runs the plan round by round instead of eagerly: a
// round is the steps ready when it starts, each its own execute task (a
// graph.Send), all of them in one superstep, and a step waits for the
// whole round before it, not only for the steps it depends on. Each task
// is checkpointed on its own and shows as its own task in the stream.
// Threads of either mode resume in the other.
func WithRoundByRound() AgentOption {
	return func(o *agentOptions) { o.rounds = true }
}

// StepEvent is what an eager round (WithEagerSteps) emits on the Custom
// stream for each of its steps: when it starts (Outcome nil) and when it
// ends (Outcome set). Saved is true for a step whose outcome was saved by
// an earlier attempt of the round's task (before a crash or a Ctrl-C) and
// that was not run again.
type StepEvent struct {
	StepID  string       `json:"step_id"`
	Outcome *StepOutcome `json:"outcome,omitempty"`
	Saved   bool         `json:"saved,omitempty"`
}

// roundSteps returns the steps an eager round may run, in plan order: the
// ready ones, and the pending ones whose every dependency is completed,
// skipped or in the round.
func roundSteps(p plan.Plan) []plan.Step {
	in := map[string]bool{}
	var out []plan.Step
	for _, s := range p.Steps {
		if s.Status.Terminal() || s.Status == plan.StatusRunning {
			continue
		}
		ok := true
		for _, d := range s.DependsOn {
			ds, found := p.Step(d)
			if !found || (!in[d] && ds.Status != plan.StatusCompleted && ds.Status != plan.StatusSkipped) {
				ok = false
				break
			}
		}
		if ok {
			in[s.ID] = true
			out = append(out, s)
		}
	}
	return out
}

// executeEager is the execute node of an eager round: it starts each
// running step of s.Plan when its dependencies have completed, within the
// round (its outcome) or before it, at most a.parallel at once, and each
// step's run is a graph.Durable, saved as it completes. A step whose
// dependency failed, was skipped for lack of a share, or showed the route
// is blocked is not started. A cancelled step (Ctrl-C), or an outcome
// Durable could not store, fails the task once the steps under way have
// been stopped; the steps whose outcomes were saved are not run again on
// resume.
func (a *Agent) executeEager(ctx context.Context, s AgentState) (state.Update[AgentState], error) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	roundStart := a.now()
	type result struct {
		id    string
		run   stepRun
		saved bool
		err   error
	}
	var (
		runs     = map[string]stepRun{}
		started  = map[string]bool{}
		held     = map[string]bool{} // will not start: a dependency did not complete
		results  = make(chan result)
		inFlight int
		firstErr error
		sem      chan struct{}
	)
	if a.parallel > 0 {
		sem = make(chan struct{}, a.parallel)
	}
	// canStart says whether step st may start now (true), must wait (false),
	// or never will (held).
	canStart := func(st plan.Step) bool {
		for _, d := range st.DependsOn {
			if held[d] {
				held[st.ID] = true
				return false
			}
			ds, _ := s.Plan.Step(d)
			if ds.Status == plan.StatusCompleted || ds.Status == plan.StatusSkipped {
				continue // before the round
			}
			if ds.Status != plan.StatusRunning {
				held[st.ID] = true // not in the round
				return false
			}
			r, ok := runs[d]
			if !ok {
				return false // under way, or not started yet
			}
			o := r.Outcome
			if !r.Ran || o.Blocked || (o.Status != plan.StatusCompleted && o.Status != plan.StatusSkipped) {
				held[st.ID] = true
				return false
			}
		}
		return true
	}
	launch := func(st plan.Step) {
		started[st.ID] = true
		inFlight++
		done := make([]StepOutcome, 0, len(runs))
		for _, r := range runs {
			if r.Ran {
				done = append(done, r.Outcome)
			}
		}
		res := applyOutcomes(s.Plan, done...).Results()
		graph.Emit(ctx, StepEvent{StepID: st.ID})
		go func() {
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-ctx.Done():
					results <- result{id: st.ID, err: ctx.Err()}
					return
				}
			}
			ran := false
			r, err := graph.Durable(ctx, "step/"+st.ID, func(ctx context.Context) (stepRun, error) {
				ran = true
				return a.runStep(ctx, s, st, res, roundStart, a.now())
			})
			results <- result{id: st.ID, run: r, saved: !ran, err: err}
		}()
	}
	for {
		if firstErr == nil && ctx.Err() == nil {
			for _, st := range s.Plan.Steps {
				if st.Status == plan.StatusRunning && !started[st.ID] && !held[st.ID] && canStart(st) {
					launch(st)
				}
			}
		}
		if inFlight == 0 {
			break
		}
		r := <-results
		inFlight--
		if r.err != nil {
			if firstErr == nil {
				// Cancelled, or a saved outcome could not be stored: the
				// task fails, and the steps under way stop too (a resume
				// runs them again).
				firstErr = r.err
				cancel()
			}
			continue
		}
		runs[r.id] = r.run
		if r.run.Ran {
			o := r.run.Outcome
			graph.Emit(ctx, StepEvent{StepID: r.id, Outcome: &o, Saved: r.saved})
		}
	}
	if firstErr != nil {
		return state.Update[AgentState]{}, firstErr
	}
	var outs []StepOutcome
	var audit []AuditRecord
	var delta Usage
	for _, st := range s.Plan.Steps {
		r, ok := runs[st.ID]
		if !ok || !r.Ran {
			continue
		}
		o := r.Outcome
		audit = append(audit, o.Audit...)
		o.Audit = nil
		outs = append(outs, o)
		delta.ModelCalls += r.Usage.ModelCalls
		delta = delta.AddTokens(Tokens{Prompt: r.Usage.PromptTokens, Completion: r.Usage.CompletionTokens, Total: r.Usage.TotalTokens})
	}
	delta.ToolCalls = len(audit)
	if len(outs) == 0 {
		return state.Update[AgentState]{}, nil
	}
	return state.Writes(
		fieldPastSteps.Set(outs),
		fieldAudit.Set(audit),
		fieldUsage.Set(delta),
	), nil
}
