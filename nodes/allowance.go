package nodes

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// ErrModelBudget is returned by a model call the agent's model-call budget
// does not allow: the planner and replan nodes give their strategies only
// what is left of it, however many attempts those would make.
var ErrModelBudget = errors.New("nodes: the model-call budget is spent")

// allowance is what is left of the model-call budget for one node run, and
// how many calls it made.
type allowance struct {
	limited bool
	left    atomic.Int64
	made    atomic.Int64
}

type allowanceKey struct{}

// withModelCalls limits the model calls made with ctx to n (n < 0: none).
func withModelCalls(ctx context.Context, n int) (context.Context, *allowance) {
	a := &allowance{limited: true}
	a.left.Store(int64(max(n, 0)))
	return context.WithValue(ctx, allowanceKey{}, a), a
}

// spent returns how many model calls were made with the allowance.
func (a *allowance) spent() int {
	if a == nil {
		return 0
	}
	return int(a.made.Load())
}

// spend takes one model call from ctx's allowance, if it has one, or
// returns ErrModelBudget when none is left: the call is refused, and the
// caller must not make it or count it.
func spend(ctx context.Context) error {
	a, _ := ctx.Value(allowanceKey{}).(*allowance)
	if a == nil {
		return nil
	}
	if !a.limited {
		a.made.Add(1)
		return nil
	}
	for {
		n := a.left.Load()
		if n <= 0 {
			return ErrModelBudget
		}
		if a.left.CompareAndSwap(n, n-1) {
			a.made.Add(1)
			return nil
		}
	}
}

// budgetFor returns ctx limited to the model calls the budget has left,
// less carried (the calls of the node's failed attempts, see ledger), and
// the allowance that counts the calls made with it (unlimited when the
// budget sets no limit).
func budgetFor(ctx context.Context, b Budget, u Usage, carried int) (context.Context, *allowance) {
	if b.MaxModelCalls <= 0 {
		a := &allowance{}
		return context.WithValue(ctx, allowanceKey{}, a), a
	}
	return withModelCalls(ctx, b.MaxModelCalls-u.ModelCalls-carried)
}

// wallDeadline is when the wall-time budget runs out for one node run, on
// the agent's clock (see WithClock), with the budget it comes from, and
// the same moment on the real clock.
type wallDeadline struct {
	at    time.Time
	limit time.Duration
	real  time.Time
	clock func() time.Time // the agent's clock, for wallPassed
}

type wallKey struct{}

// withWallDeadline makes ctx carry the time at which the wall-time budget
// limit (Budget.MaxWall) is spent, on the agent's clock, where now is the
// agent clock's reading at this moment: the executors check it before
// every tool call and model call, and cutAtWall cancels a call under way
// when it comes. It is a value, not a context deadline, because the
// agent's clock need not be the real one: the real deadline is as far from
// the real time now as at is from now.
func withWallDeadline(ctx context.Context, at time.Time, limit time.Duration, now time.Time, clock func() time.Time) context.Context {
	return context.WithValue(ctx, wallKey{}, wallDeadline{at: at, limit: limit, real: time.Now().Add(at.Sub(now)), clock: clock})
}

// wallPassed returns the stop reason naming BudgetWall when ctx carries a
// wall-time deadline that has passed on the agent's clock, or nil: a model
// call is then not made (callModel, ResilientModel), not counted, and no
// token is sent.
func wallPassed(ctx context.Context) error {
	d, ok := ctx.Value(wallKey{}).(wallDeadline)
	if !ok || d.clock == nil {
		return nil
	}
	if stop := wallSpent(ctx, d.clock()); stop != nil {
		return stop
	}
	return nil
}

// cutAtWall returns ctx cancelled when ctx's wall-time budget runs out, its
// cause the *StopReason naming BudgetWall; ctx itself, with a no-op
// cancel, when ctx carries no wall-time deadline.
func cutAtWall(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Value(wallKey{}).(wallDeadline)
	if !ok {
		return ctx, func() {}
	}
	stop := &StopReason{Budget: BudgetWall, Limit: d.limit.String(), Used: d.limit.String()}
	return context.WithDeadlineCause(ctx, d.real, stop)
}

// wallSpent returns the stop reason, naming BudgetWall, when ctx carries a
// wall-time deadline that has passed at now, or nil.
func wallSpent(ctx context.Context, now time.Time) *StopReason {
	d, ok := ctx.Value(wallKey{}).(wallDeadline)
	if !ok || now.Before(d.at) {
		return nil
	}
	used := d.limit + now.Sub(d.at)
	return &StopReason{Budget: BudgetWall, Limit: d.limit.String(), Used: used.Round(time.Millisecond).String()}
}
