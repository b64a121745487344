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

// allowance is what is left of the model-call budget for one node run.
type allowance struct {
	left atomic.Int64
}

type allowanceKey struct{}

// withModelCalls limits the model calls made with ctx to n (n < 0: none).
func withModelCalls(ctx context.Context, n int) (context.Context, *allowance) {
	a := &allowance{}
	a.left.Store(int64(max(n, 0)))
	return context.WithValue(ctx, allowanceKey{}, a), a
}

// spend takes one model call from ctx's allowance, if it has one, or
// returns ErrModelBudget when none is left: the call is refused, and the
// caller must not make it or count it.
func spend(ctx context.Context) error {
	a, _ := ctx.Value(allowanceKey{}).(*allowance)
	if a == nil {
		return nil
	}
	for {
		n := a.left.Load()
		if n <= 0 {
			return ErrModelBudget
		}
		if a.left.CompareAndSwap(n, n-1) {
			return nil
		}
	}
}

// budgetFor returns ctx limited to the model calls the budget has left,
// or ctx itself when the budget sets no limit.
func budgetFor(ctx context.Context, b Budget, u Usage) (context.Context, *allowance) {
	if b.MaxModelCalls <= 0 {
		return ctx, nil
	}
	return withModelCalls(ctx, b.MaxModelCalls-u.ModelCalls)
}

// wallDeadline is when the wall-time budget runs out for one execute task,
// on the agent's clock (see WithClock), with the budget it comes from.
type wallDeadline struct {
	at    time.Time
	limit time.Duration
}

type wallKey struct{}

// withWallDeadline makes ctx carry the time at which the wall-time budget
// limit (Budget.MaxWall) is spent: the executors check it before every tool
// call and model call. It is a value, not a context deadline, because the
// agent's clock need not be the real one, and because a call under way is
// not cut off: the budget is checked before a call, as the others are.
func withWallDeadline(ctx context.Context, at time.Time, limit time.Duration) context.Context {
	return context.WithValue(ctx, wallKey{}, wallDeadline{at: at, limit: limit})
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
