package nodes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The agent's node names.
const (
	NodePlanner = "planner"
	NodeExecute = "execute"
	NodeReplan  = "replan"
	NodeRespond = "respond"
)

// AgentConfig is what the agent is made of. Tools is required, and either
// Planner or Model; everything else has a default.
type AgentConfig struct {
	// Planner makes the first plan. Default: an LLMPlanner over Model.
	Planner Planner
	// Tools are the tools steps may call (any langchaingo tools.Tool).
	Tools []tools.Tool
	// Replanner revises the plan when a step fails or shows the route is
	// blocked. Default: an AdaptiveReplanner with IncrementalFix, and with
	// Model also a model PartialReplan and a FullReplan over the planner.
	Replanner Replanner
	// Responder writes the answer. Default: an LLMResponder over Model, or
	// a TemplateResponder without one.
	Responder Responder
	// Budget bounds the run; every stop is named in the response.
	Budget Budget
	// FailurePolicy says what to do when a tool fails (default: replan).
	FailurePolicy FailurePolicy
	// Checker, optional, judges successful steps (blocked route, evidence).
	Checker Checker
	// Guards, optional, check the first plan and every revision (e.g.
	// plan.ReadOnlyGuard), and the tools a ReAct step may call: a tool a guard
	// refuses in a one-step plan is not offered to the model, and each
	// call is checked as a one-step plan with its tool and input, a call
	// a guard refuses not being made (see ReActExecutor.Guards). The planner receives
	// them in PlanRequest.Guards (and a FullReplan's planner in its
	// request), so an LLMPlanner asks the model again when a guard refuses
	// its plan, and the model-backed PartialReplan likewise.
	Guards []plan.Guard
	// Model, optional, is the model of the default planner, replanner and
	// responder (any llms.Model). The default planner and replanner ask
	// it for JSON mode (llms.WithJSONMode); a model that refuses it is
	// asked again without it (see ResilientModel).
	Model llms.Model
}

// Agent is the plan-and-execute agent as an ordinary StateGraph:
//
//	start → planner ⇒ execute → replan ⇒ execute | respond → end
//
// where ⇒ fans the ready steps out, one execute task per step, so
// independent steps run in parallel in one superstep; the execute tasks of
// a round join into one replan run. Graph returns the builder so users can
// add nodes and edges before compiling.
//
// A round takes two supersteps (execute, replan). Compile gives the graph
// a recursion limit that follows from the budget: RecursionLimit of plans
// of up to 32 steps (fewer rounds when MaxToolCalls bounds
// them), so a long chain finishes without the caller raising the limit; a
// call's graph.WithRecursionLimit still wins. The replan node
// checks the budgets after each round; the tool-call, model-call and
// wall-time budgets hold within a round too (see Budget for the rules).
type Agent struct {
	cfg      AgentConfig
	exec     *Executor
	react    *ReActExecutor
	reactFor func(plan.Step) bool
	now      func() time.Time
	g        *graph.StateGraph[AgentState]
	// stepTimeout bounds each step (WithStepTimeout).
	stepTimeout time.Duration
	// stream says the model calls stream their tokens (WithTokenStreaming).
	stream bool
	// ledger carries the model calls of failed node attempts to their
	// retries.
	ledger ledger
	// eager runs a round's steps as their dependencies complete, at most
	// parallel at once (the default; see WithEagerSteps and
	// WithRoundByRound).
	eager    bool
	parallel int
}

// ErrNoPlanner is returned by NewAgent when neither a Planner nor a Model
// is configured.
var ErrNoPlanner = errors.New("nodes: the agent needs a Planner or a Model")

// NewAgent builds the agent's graph from cfg.
func NewAgent(cfg AgentConfig, opts ...AgentOption) (*Agent, error) {
	var o agentOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.now == nil {
		o.now = time.Now
	}
	cfg.Model = resilient(cfg.Model, o.retry)
	if cfg.Planner == nil {
		if cfg.Model == nil {
			return nil, ErrNoPlanner
		}
		cfg.Planner = &LLMPlanner{Model: cfg.Model, Tools: cfg.Tools, Options: jsonMode(cfg.Model)}
	}
	if cfg.Replanner == nil {
		ar := AdaptiveReplanner{Incremental: IncrementalFix{}}
		if cfg.Model != nil {
			ar.Partial = PartialReplan{Model: cfg.Model, Options: jsonMode(cfg.Model), OutputCap: o.outputCap}
			ar.Full = FullReplan{Planner: cfg.Planner}
		}
		cfg.Replanner = ar
	}
	if cfg.Responder == nil {
		if cfg.Model != nil {
			cfg.Responder = LLMResponder{Model: cfg.Model, OutputCap: o.outputCap}
		} else {
			cfg.Responder = TemplateResponder{}
		}
	}
	a := &Agent{
		cfg: cfg,
		exec: &Executor{Tools: cfg.Tools, Policy: cfg.FailurePolicy, Checker: cfg.Checker,
			MaxToolCallsPerStep: cfg.Budget.MaxToolCallsPerStep, Now: o.now, ToolTimeouts: o.toolTimeouts},
		now:         o.now,
		stepTimeout: o.stepTimeout,
		stream:      o.stream,
		eager:       !o.rounds,
		parallel:    o.parallel,
	}
	if o.effects {
		a.exec.Tools = ledgerTools(cfg.Tools)
	}
	if o.react != nil {
		r := *o.react
		r.Model = resilient(r.Model, o.retry)
		if r.ToolTimeouts == nil {
			r.ToolTimeouts = o.toolTimeouts
		}
		if r.Tools == nil {
			r.Tools = cfg.Tools
		}
		if r.MaxToolCalls == 0 {
			r.MaxToolCalls = cfg.Budget.MaxToolCallsPerStep
		}
		if r.Now == nil {
			r.Now = o.now
		}
		if r.OutputCap == 0 {
			r.OutputCap = o.outputCap
		}
		if r.Checker == nil {
			r.Checker = cfg.Checker
		}
		r.Guards = append(slices.Clone(r.Guards), cfg.Guards...)
		a.react, a.reactFor = &r, o.reactFor
		if a.reactFor == nil {
			a.reactFor = func(s plan.Step) bool { return s.Tool == "" && len(s.DependsOn) == 0 }
		}
	}
	a.g = graph.New(agentSchema).
		AddNode(NodePlanner, a.plan, o.nodeOpts[NodePlanner]...).
		AddNode(NodeExecute, a.execute, o.nodeOpts[NodeExecute]...).
		AddNode(NodeReplan, a.replan, o.nodeOpts[NodeReplan]...).
		AddNode(NodeRespond, a.respond, o.nodeOpts[NodeRespond]...).
		AddEdge(graph.Start, NodePlanner).
		AddConditionalEdges(NodePlanner, graph.FanOut(a.sendRunning), NodeExecute).
		AddEdge(NodeExecute, NodeReplan).
		AddConditionalEdges(NodeReplan, a.afterReplan, NodeExecute, NodeRespond).
		AddEdge(NodeRespond, graph.End)
	return a, nil
}

// Graph returns the agent's graph builder, to extend before compiling.
func (a *Agent) Graph() *graph.StateGraph[AgentState] { return a.g }

// Schema returns the schema of AgentState, whose fields have stable names
// for checkpoints. A node a user adds to the agent's graph writes the state
// with its Edit, e.g.
// a.Schema().Edit(s, func(s *AgentState) { s.Constraints = append(s.Constraints, "…") });
// Usage has a custom reducer (Usage.Add), so an edit sets it to what to add.
func (a *Agent) Schema() *state.Schema[AgentState] { return agentSchema }

// Config returns the configuration with its defaults filled in.
func (a *Agent) Config() AgentConfig { return a.cfg }

// planStepsForLimit is the plan size the recursion limit Compile sets is
// made for (see RecursionLimit): a run whose plans stay within it never
// meets the limit before its budget stops it.
const planStepsForLimit = 32

// Compile compiles the agent's graph (see graph.StateGraph.Compile), with
// the recursion limit its budget needs as the graph's default
// (graph.WithDefaultRecursionLimit of RecursionLimit(planStepsForLimit));
// an option given here or a call's WithRecursionLimit overrides it.
func (a *Agent) Compile(opts ...graph.CompileOption) (*graph.Compiled[AgentState], error) {
	opts = append([]graph.CompileOption{graph.WithDefaultRecursionLimit(a.RecursionLimit(planStepsForLimit))}, opts...)
	return a.g.Compile(opts...)
}

// plan is the planner node: it plans for the goal, with the guards in the
// request (PlanRequest.Guards), checks the plan (checkFirstPlan) and marks
// the ready steps running. A planner failure (a model error, a plan still
// rejected after its attempts, no template) or a plan that fails validation
// or a guard fails the node with a clear error, before any step runs.
func (a *Agent) plan(ctx context.Context, s AgentState) (_ state.Update[AgentState], err error) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	start := a.now()
	delta := Usage{}
	req := PlanRequest{Goal: s.Goal, Constraints: s.Constraints, Guards: a.cfg.Guards}
	carried := a.ledger.carried(ctx, NodePlanner, s)
	ctx, al := budgetFor(ctx, a.cfg.Budget, s.Usage, carried)
	defer func() { a.ledger.settle(ctx, NodePlanner, s, carried+al.spent(), err) }()
	ctx = a.withWall(ctx, start, s.Usage)
	ctx = streaming(ctx, a.stream, NodePlanner, "")
	p, info, err := a.cfg.Planner.Plan(ctx, req)
	if cerr := ctx.Err(); err != nil && cerr != nil && !isWallStop(err) {
		// Cancelled (Ctrl-C): not a failure of the planner; a resume plans again.
		return state.Update[AgentState]{}, failNode(NodePlanner, cerr)
	}
	if errors.Is(err, ErrModelBudget) {
		// Info counts the calls made; the refused one was not.
		return state.Update[AgentState]{}, failNode(NodePlanner, fmt.Errorf("planning needed more model calls than the budget allows (%s: used %d of %d): %w",
			BudgetModelCalls, s.Usage.ModelCalls+carried+info.ModelCalls, a.cfg.Budget.MaxModelCalls, err))
	}
	if err != nil {
		return state.Update[AgentState]{}, failNode(NodePlanner, err)
	}
	delta.ModelCalls = carried + info.ModelCalls
	delta = delta.AddTokens(info.Tokens)
	if p.Goal == "" {
		p.Goal = s.Goal
	}
	for _, c := range s.Constraints {
		if !slices.Contains(p.Constraints, c) {
			p.Constraints = append(p.Constraints, c)
		}
	}
	if err := a.checkFirstPlan(p); err != nil {
		return state.Update[AgentState]{}, failNode(NodePlanner, fmt.Errorf("the plan was refused before anything ran: %w", err))
	}
	u := s.Usage.Add(delta) // the planner's model calls are spent before the round
	p, running := a.startRound(p, u)
	if running == 0 {
		if stop := a.blockedBy(p, u); stop != nil {
			call := "tool call"
			if stop.Budget == BudgetModelCalls {
				call = "model call"
			}
			return state.Update[AgentState]{}, failNode(NodePlanner, fmt.Errorf("no %s is left to run the plan's first steps (%s: used %s of %s)",
				call, stop.Budget, stop.Used, stop.Limit))
		}
		return state.Update[AgentState]{}, failNode(NodePlanner, fmt.Errorf("the plan has no step ready to run (%d steps; empty, or every step waits on another)", len(p.Steps)))
	}
	delta.Wall = a.now().Sub(start)
	return state.Writes(fieldPlan.Set(p), fieldUsage.Set(delta), fieldApplied.Set(len(s.PastSteps))), nil
}

// checkFirstPlan checks the planner's plan before anything runs, whatever
// Planner made it: plan.Validate against the agent's tools and every guard of
// AgentConfig.Guards, as checkRevision checks a revision. It returns a
// *plan.ValidationError (matching plan.ErrInvalid) listing every problem, or nil.
func (a *Agent) checkFirstPlan(p plan.Plan) error {
	probs := plan.Check(p, a.cfg.Tools)
	for _, g := range a.cfg.Guards {
		probs = append(probs, g(p)...)
	}
	if len(probs) > 0 {
		return &plan.ValidationError{Problems: probs}
	}
	return nil
}

// sendRunning sends each running step to execute as its own task, with the
// plan and the usage its shares of the tool-call and model-call budgets are
// computed from; with eager rounds (the default), one task for the whole
// round.
func (a *Agent) sendRunning(_ context.Context, s AgentState) ([]graph.Send[AgentState], error) {
	var sends []graph.Send[AgentState]
	for _, st := range s.Plan.Steps {
		if st.Status == plan.StatusRunning {
			sends = append(sends, graph.SendTo(NodeExecute, AgentState{Goal: s.Goal, Plan: s.Plan, Usage: s.Usage, Current: st.ID}))
			if a.eager {
				sends[0].Arg.Current = ""
				break
			}
		}
	}
	return sends, nil
}

// afterReplan fans the running steps out to execute, or goes to respond
// when the plan finished, stopped or is blocked.
func (a *Agent) afterReplan(ctx context.Context, s AgentState) (graph.Route[AgentState], error) {
	if s.Stop == nil && s.Blocked == "" {
		sends, _ := a.sendRunning(ctx, s)
		if len(sends) > 0 {
			return graph.Route[AgentState]{Sends: sends}, nil
		}
	}
	return graph.Route[AgentState]{To: []string{NodeRespond}}, nil
}

// execute is the execute node. Run round by round (WithRoundByRound), it is
// one task per step (s.Current), which appends its outcome and audit
// records and adds its usage, within its shares of the budgets (toolShare,
// modelShare; see Budget); a step whose share is none is not run and stays
// pending. The task's wall-time deadline is its start plus what
// Budget.MaxWall leaves after the running time so far (the tasks of a
// round run in parallel and are counted once). With eager rounds (the
// default) it is
// one task per round, its Send carrying no step, that runs the round's
// steps as their dependencies complete (executeEager). Each task does
// what its Send asks, whichever way the agent runs now, so a thread
// resumes in either mode.
func (a *Agent) execute(ctx context.Context, s AgentState) (state.Update[AgentState], error) {
	if s.Current == "" {
		return a.executeEager(ctx, s)
	}
	ctx, cancel := ownContext(ctx)
	defer cancel()
	step, ok := s.Plan.Step(s.Current)
	if !ok {
		return state.Update[AgentState]{}, failNode(NodeExecute, fmt.Errorf("no step %q in the plan (execute runs from a Send carrying the step)", s.Current))
	}
	start := a.now()
	r, err := a.runStep(ctx, s, step, s.Plan.Results(), start, start)
	if err != nil || !r.Ran {
		return state.Update[AgentState]{}, err
	}
	return r.writes(), nil
}

// replan is the replan node: it records the round's outcomes on the plan,
// decides (replanRound) and starts the next round, or ends the run with a
// stop or blocked reason for the responder.
func (a *Agent) replan(ctx context.Context, s AgentState) (_ state.Update[AgentState], err error) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	start := a.now()
	from := min(s.Applied, len(s.PastSteps))
	outs := s.PastSteps[from:]
	before := s.Plan
	p := applyOutcomes(before, outs...)
	for i := range p.Steps {
		if p.Steps[i].Status == plan.StatusRunning { // sent, but no outcome came back
			p.Steps[i].Status = plan.StatusPending
		}
	}
	// The clock runs for the round's execute tasks and this node only: the
	// time between nodes, where a thread sits when it is interrupted, is
	// not charged to the wall-time budget.
	ran := runningTime(outs)
	u := s.Usage
	switch {
	case progressed(before, outs):
		u = u.EndRound(true)
	case onlyRepeated(before, outs):
		// Work a revision asked for again: not progress, but not a round
		// without progress either (Budget.MaxRoundsWithoutProgress).
		u.Rounds++
	default:
		u = u.EndRound(false)
	}
	u.Wall += ran
	u.Start = start
	delta := Usage{Rounds: 1, RoundsWithoutProgress: u.RoundsWithoutProgress}
	carried := a.ledger.carried(ctx, NodeReplan, s)
	ctx, al := budgetFor(ctx, a.cfg.Budget, u, carried)
	defer func() { a.ledger.settle(ctx, NodeReplan, s, carried+al.spent(), err) }()
	delta.ModelCalls = carried // spent by failed attempts of this node
	ctx = a.withWall(ctx, start, u)
	ctx = streaming(ctx, a.stream, NodeReplan, "")
	u.ModelCalls += carried
	needs := a.needs(p)
	d, err := replanRound(ctx, roundInput{Plan: p, Outcomes: outs, Budget: a.cfg.Budget, Usage: u, Now: a.now(), Needs: &needs},
		a.cfg.Replanner, a.cfg.Tools, a.cfg.Guards...)
	if errors.Is(err, ErrModelBudget) {
		// The strategies needed more model calls than the budget had left.
		// Their info counts the calls they made (a refused call is not
		// one); the decision keeps the trigger and the strategies that
		// failed before (Info.Failed).
		var info ReplanInfo
		if d.Info != nil {
			info = *d.Info
		}
		spent := a.cfg.Budget.MaxModelCalls
		d, err = Decision{Action: ActionStop, Reason: "a replan needed more model calls than the budget allows", Trigger: d.Trigger, Info: &info,
			Stop: &StopReason{Budget: BudgetModelCalls, Limit: fmt.Sprint(spent), Used: fmt.Sprint(u.ModelCalls + info.ModelCalls)}}, nil
	}
	if stop := wallStop(err); stop != nil {
		// The wall-time budget ran out during a strategy's model call.
		var info ReplanInfo
		if d.Info != nil {
			info = *d.Info
		}
		d, err = Decision{Action: ActionStop, Reason: "the wall-time budget ran out while revising the plan", Trigger: d.Trigger, Info: &info, Stop: stop}, nil
	}
	if cerr := ctx.Err(); err != nil && cerr != nil {
		return state.Update[AgentState]{}, failNode(NodeReplan, cerr)
	}
	if err != nil {
		return state.Update[AgentState]{}, failNode(NodeReplan, err)
	}
	if d.Info != nil {
		delta.ModelCalls += d.Info.ModelCalls
		delta = delta.AddTokens(d.Info.Tokens)
	}
	ws := []state.Write[AgentState]{fieldApplied.Set(len(s.PastSteps))}
	next := u
	next.ModelCalls += delta.ModelCalls - carried // this node's model calls are spent before the next round
	switch d.Action {
	case ActionContinue:
		var n int
		p, n = a.startRound(p, next)
		if n == 0 {
			// decide let the run go on, the work left not needing a spent
			// budget, so none should keep the ready steps from starting;
			// should one, the stop names it.
			if stop := a.blockedBy(p, next); stop != nil {
				d.Action, d.Reason, d.Stop = ActionStop, stop.Error(), stop
			}
		}
	case ActionRevise:
		delta.Replans = 1
		var n int
		p, n = a.startRound(*d.Plan, next)
		if n == 0 {
			if stop := a.blockedBy(p, next); stop != nil {
				// The revision spent the last model calls its steps
				// needed, or its steps need tool calls and none is left.
				d.Action, d.Reason, d.Stop = ActionStop, d.Reason+"; the revised plan cannot start: "+stop.Error(), stop
			} else {
				d.Action, d.Reason = ActionBlocked, d.Reason+"; the revised plan has no step ready to run"
			}
		}
	}
	switch d.Action {
	case ActionStop:
		ws = append(ws, fieldStop.Set(d.Stop))
	case ActionBlocked:
		ws = append(ws, fieldBlocked.Set(d.Reason))
	}
	d.Plan = nil
	delta.Wall = ran + a.now().Sub(start)
	ws = append(ws, fieldPlan.Set(p), fieldUsage.Set(delta), fieldDecisions.Set([]Decision{d}))
	return state.Writes(ws...), nil
}

// ownContext gives a node a context of its own, cancelled when the node
// returns. Models and tools may leave goroutines behind that still touch
// the contexts they were given (net/http cancels a request's context from
// its connection's read loop after the call returned); this keeps those
// goroutines off the runtime's task context, which the runtime reuses for
// the next step's task.
func ownContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}
