package nodes

import (
	"context"
	"errors"
	"sync/atomic"
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
