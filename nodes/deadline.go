package nodes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/graph"
)

// WithModelRetry sets how the agent's model (AgentConfig.Model, and
// WithReAct's) is retried and timed: NewAgent wraps it in a ResilientModel
// with p (the zero ModelRetry: its defaults). ModelRetry{MaxAttempts: 1}
// turns the retries off, not the per-call timeout nor the budget's
// deadline. A Planner, Replanner or Responder built by hand keeps the model
// it was given: wrap that in a &ResilientModel{Model: m, Retry: p}.
func WithModelRetry(p ModelRetry) AgentOption { return func(o *agentOptions) { o.retry = p } }

// WithToolTimeout bounds each call of the named tools (every tool when none
// is named) to d: a call still running then is cancelled and fails its
// step with kind timeout (plan.ErrKindTimeout), which the replanner sees.
// A later option for the same tool wins.
func WithToolTimeout(d time.Duration, tools ...string) AgentOption {
	return func(o *agentOptions) {
		if o.toolTimeouts == nil {
			o.toolTimeouts = map[string]time.Duration{}
		}
		if len(tools) == 0 {
			tools = []string{""}
		}
		for _, t := range tools {
			o.toolTimeouts[t] = d
		}
	}
}

// WithStepTimeout bounds each step of the plan (a tool call with its
// retries, or a ReAct loop) to d: a step still running then is cancelled
// and fails with kind timeout, which the replanner sees, rather than
// failing the run. A graph.WithTimeout on the execute node
// (WithNodeOptions) is honoured the same way: the step is cut off a little
// before the node's deadline (stepMargin), so its failure is recorded.
func WithStepTimeout(d time.Duration) AgentOption { return func(o *agentOptions) { o.stepTimeout = d } }

// timeoutError is the cause of a context cut off by a timeout of the
// agent's: it is a context.DeadlineExceeded, so plan.ClassifyError calls it
// a timeout.
type timeoutError struct {
	what string
	d    time.Duration
}

func (e *timeoutError) Error() string { return fmt.Sprintf("%s timed out after %v", e.what, e.d) }

// Is makes a timeoutError match context.DeadlineExceeded.
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// stepMargin is how long before a node deadline (graph.WithTimeout on the
// execute node) a step is cut off, so the execute task can record the
// failed step before the graph fails the node: a fifth of the time left,
// between 10ms and 1s.
func stepMargin(left time.Duration) time.Duration {
	return min(max(left/5, 10*time.Millisecond), time.Second)
}

// stepContext bounds a step by WithStepTimeout and by the node's own
// deadline, less stepMargin, when the node has one.
func (a *Agent) stepContext(ctx context.Context) (context.Context, context.CancelFunc) {
	cancels := []context.CancelFunc{}
	if a.stepTimeout > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeoutCause(ctx, a.stepTimeout, &timeoutError{what: "the step", d: a.stepTimeout})
		cancels = append(cancels, c)
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		cut := left - stepMargin(left)
		if cut > 0 {
			var c context.CancelFunc
			ctx, c = context.WithTimeoutCause(ctx, cut, &timeoutError{what: "the step", d: cut.Round(time.Millisecond)})
			cancels = append(cancels, c)
		}
	}
	return ctx, func() {
		for _, c := range cancels {
			c()
		}
	}
}

// withWall makes ctx carry the wall-time deadline of a node that started
// at start with usage u (see withWallDeadline), when Budget.MaxWall is set.
func (a *Agent) withWall(ctx context.Context, start time.Time, u Usage) context.Context {
	limit := a.cfg.Budget.MaxWall
	if limit <= 0 {
		return ctx
	}
	return withWallDeadline(ctx, start.Add(limit-u.Wall), limit, start, a.now)
}

// wallStop returns the *StopReason naming the wall-time budget that err
// carries, or nil.
func wallStop(err error) *StopReason {
	var stop *StopReason
	if errors.As(err, &stop) && stop.Budget == BudgetWall {
		return stop
	}
	return nil
}

func isWallStop(err error) bool { return wallStop(err) != nil }

// toolContext bounds one tool call: by timeouts (by tool name, "" for any
// other tool) and by the wall-time budget ctx carries (cutAtWall).
func toolContext(ctx context.Context, tool string, timeouts map[string]time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancelWall := cutAtWall(ctx)
	d, ok := timeouts[tool]
	if !ok {
		d = timeouts[""]
	}
	if d <= 0 {
		return ctx, cancelWall
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, &timeoutError{what: fmt.Sprintf("tool %q", tool), d: d})
	return ctx, func() { cancel(); cancelWall() }
}

// callError is a tool call's error as the step reports it: when the call's
// context was cut off (a tool timeout, the step's, the wall-time budget),
// the cause, which says which, joined to what the tool returned.
func callError(callCtx context.Context, err error) error {
	if err == nil || callCtx.Err() == nil {
		return err
	}
	cause := context.Cause(callCtx)
	if errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w (%v)", cause, err)
}

// RecursionLimit returns the recursion limit (graph.WithRecursionLimit) a
// run of the agent needs when its plans have at most steps steps: the
// planner, one round (execute and replan, two supersteps) per step of the
// first plan and of each revision the budget allows (MaxReplans; three
// when it sets no limit), no more rounds than MaxToolCalls allows tool
// calls (plus a synthesis round per plan) when it is set, and respond —
// never less than graph.DefaultRecursionLimit. Compile sets
// RecursionLimit(32) as the graph's default; a call whose
// plans may be longer passes its own:
//
//	app.Invoke(ctx, in, graph.WithRecursionLimit(agent.RecursionLimit(60)))
func (a *Agent) RecursionLimit(steps int) int {
	plans := a.cfg.Budget.MaxReplans + 1
	if a.cfg.Budget.MaxReplans <= 0 {
		plans = 4
	}
	rounds := max(steps, 1) * plans
	if n := a.cfg.Budget.MaxToolCalls; n > 0 {
		rounds = min(rounds, n+plans)
	}
	return max(2+2*rounds+2, graph.DefaultRecursionLimit)
}
