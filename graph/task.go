package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/stategraph/stategraph/state"
)

// RetryPolicy says how a node's failures are retried. The zero value of
// each field takes the default given.
type RetryPolicy struct {
	// MaxAttempts is the most times the node runs, the first included
	// (default 3).
	MaxAttempts int
	// InitialInterval is the wait before the first retry (default 500ms).
	InitialInterval time.Duration
	// BackoffFactor multiplies the wait after each retry (default 2).
	BackoffFactor float64
	// MaxInterval caps the wait (default 128s).
	MaxInterval time.Duration
	// Jitter, when set, randomizes each wait between half and all of it.
	Jitter bool
	// RetryOn says which errors to retry (default: all but context
	// cancellation and interrupts).
	RetryOn func(error) bool
}

func (p *RetryPolicy) attempts() int {
	if p == nil {
		return 1
	}
	if p.MaxAttempts <= 0 {
		return 3
	}
	return p.MaxAttempts
}

// wait returns the pause before retry number n (1-based).
func (p *RetryPolicy) wait(n int) time.Duration {
	d := p.InitialInterval
	if d == 0 {
		d = 500 * time.Millisecond
	}
	f := p.BackoffFactor
	if f == 0 {
		f = 2
	}
	maxD := p.MaxInterval
	if maxD == 0 {
		maxD = 128 * time.Second
	}
	w := float64(d)
	for i := 1; i < n; i++ {
		w *= f
		if w >= float64(maxD) {
			w = float64(maxD)
			break
		}
	}
	if p.Jitter {
		w = w/2 + rand.Float64()*w/2
	}
	return time.Duration(w)
}

func (p *RetryPolicy) retries(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, errInterrupt) || IsHandoff(err) {
		return false
	}
	if p.RetryOn != nil {
		return p.RetryOn(err)
	}
	return true
}

// execute runs a task's node under its retry policy and timeout, turning a
// panic into a *NodeError. ctx carries the task's scope. The slow paths
// live in functions of their own to keep this frame small: tasks run on
// fresh goroutines, whose stacks start small.
func (r *run[S]) execute(ctx context.Context, t *task[S], in S) {
	if r.timeTasks {
		now := r.c.now
		start := now()
		defer func() { t.took = now().Sub(start) }()
	}
	if t.node.cache != nil {
		r.executeCached(ctx, t, in)
		return
	}
	r.runNode(ctx, t, in)
}

// runNode runs a task's node under its retry policy and timeout.
func (r *run[S]) runNode(ctx context.Context, t *task[S], in S) {
	n := t.node
	for attempt := 1; ; attempt++ {
		t.attempts = attempt
		if attempt > 1 && t.scope != nil {
			e := t.scope.extOf()
			e.attempt.Store(int32(attempt))
			e.nested.Store(0)
		}
		if attempt > 1 && t.scope != nil {
			// A retry starts the node over: its Interrupt calls match the
			// resume values from the first again.
			if h := t.scope.hitl; h != nil {
				h.counter, h.interrupts = 0, h.interrupts[:0]
			}
		}
		upd, err, pv := call(ctx, n, in)
		if err == nil {
			t.update, t.err = upd, nil
			return
		}
		if pv == nil && retryAfter(ctx, n.retry, attempt, err) {
			continue
		}
		r.fail(t, attempt, err, pv)
		return
	}
}

// executeCached runs a task of a node with a cache policy: from the node
// cache when it holds the result for the task's input, and otherwise by
// running the node and storing its result. A task given resume values
// runs the node (the caller's answer wins over a cached one) and stores
// what it returns. The cache is an optimisation: an entry that cannot be
// read is a miss, and a result that cannot be stored is still the task's.
//
//go:noinline
func (r *run[S]) executeCached(ctx context.Context, t *task[S], in S) {
	key, err := r.nodeCacheKey(t, t.node.cache, &in)
	if err != nil {
		t.err = &NodeError{Node: t.name, Step: r.step, TaskID: t.id, Err: fmt.Errorf("node cache: %w", err)}
		return
	}
	if len(t.resume) == 0 && len(t.resumeByID) == 0 && r.fromCache(ctx, t, key) {
		return
	}
	r.runNode(ctx, t, in)
	if t.err != nil {
		return // failures and interrupts are not cached
	}
	r.toCache(ctx, t, key)
}

// retryAfter reports whether attempt's error is retried, after waiting
// the backoff of the first of policies that matches the error.
//
//go:noinline
func retryAfter(ctx context.Context, policies []RetryPolicy, attempt int, err error) bool {
	var p *RetryPolicy
	for i := range policies {
		if policies[i].retries(err) {
			p = &policies[i]
			break
		}
	}
	if p == nil || attempt >= p.attempts() || ctx.Err() != nil {
		return false
	}
	timer := time.NewTimer(p.wait(attempt))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

//go:noinline
func (r *run[S]) fail(t *task[S], attempt int, err error, pv *panicked) {
	if errors.Is(err, errInterrupt) {
		t.err = err
		return
	}
	ne := &NodeError{Node: t.name, Step: r.step, TaskID: t.id, Attempts: attempt, Err: err}
	if pv != nil {
		ne.Panic, ne.Stack = pv.value, pv.stack
	}
	t.err = ne
}

// panicked is a recovered panic and the stack it happened on.
type panicked struct {
	value any
	stack []byte
}

func call[S any](ctx context.Context, n *node[S], in S) (upd state.Update[S], err error, pv *panicked) {
	if n.timeout > 0 {
		return callWithTimeout(ctx, n, in)
	}
	defer recoverInto(&err, &pv)
	upd, err = n.fn(ctx, in)
	if err == nil || errors.Is(err, ErrInterrupted) {
		// Interrupt's error, or the *InterruptError of a graph the node
		// invoked (nest), whose interrupts are the node's.
		if s := scopeOf(ctx); s != nil && len(s.interrupts()) > 0 {
			err = errInterrupt
		}
	}
	return upd, err, nil
}

//go:noinline
func callWithTimeout[S any](ctx context.Context, n *node[S], in S) (upd state.Update[S], err error, pv *panicked) {
	ctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	defer recoverInto(&err, &pv)
	upd, err = n.fn(ctx, in)
	if ctx.Err() == context.DeadlineExceeded && (err == nil || errors.Is(err, context.DeadlineExceeded)) {
		err = fmt.Errorf("%w after %v", ErrNodeTimeout, n.timeout)
	}
	if s := scopeOf(ctx); s != nil && len(s.interrupts()) > 0 && (err == nil || errors.Is(err, ErrInterrupted)) {
		err = errInterrupt
	}
	return upd, err, nil
}

// recoverInto turns a panic into an error and the recovered value.
func recoverInto(err *error, pv **panicked) {
	if v := recover(); v != nil {
		*pv = &panicked{value: v, stack: debug.Stack()}
		*err = fmt.Errorf("panic: %v", v)
	}
}
