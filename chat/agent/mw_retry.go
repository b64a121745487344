package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// ToolRetry runs a failed tool call again, with a pause between attempts
// (LangChain's toolRetryMiddleware). Each retry is a Step ("retry",
// "retried"). After the last attempt the error goes on, to the tools
// node's error handler.
type ToolRetry struct {
	Base
	// Tools names the tools retried; empty retries every tool.
	Tools []string
	// MaxAttempts is the most attempts of a call, the first included
	// (below 2: 3).
	MaxAttempts int
	// Backoff is the pause before attempt n+1 after n failed (n ≥ 1);
	// nil: DefaultBackoff.
	Backoff func(n int) time.Duration
	// Sleep pauses for d or until ctx ends (nil: a timer); tests give
	// one that records d and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// RetryOn says which errors are retried; nil retries every error.
	RetryOn func(error) bool
}

// DefaultBackoff doubles from half a second up to 30 seconds.
func DefaultBackoff(n int) time.Duration {
	d := 500 * time.Millisecond << min(n-1, 6)
	return min(d, 30*time.Second)
}

// WrapTool retries run while it fails, up to MaxAttempts.
func (r ToolRetry) WrapTool(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	name := ""
	if call.FunctionCall != nil {
		name = call.FunctionCall.Name
	}
	if len(r.Tools) > 0 && !slices.Contains(r.Tools, name) {
		return run(ctx)
	}
	attempts := r.MaxAttempts
	if attempts < 2 {
		attempts = 3
	}
	backoff, sleep := r.Backoff, r.Sleep
	if backoff == nil {
		backoff = DefaultBackoff
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	for n := 1; ; n++ {
		out, err := run(ctx)
		if err == nil || n == attempts || ctx.Err() != nil || (r.RetryOn != nil && !r.RetryOn(err)) {
			return out, err
		}
		d := backoff(n)
		Record(ctx, Step{Middleware: "retry", Action: "retried",
			Detail: fmt.Sprintf("tool %q (call %q) attempt %d of %d failed (%v); next in %v", name, call.ID, n, attempts, err, d)})
		if err := sleep(ctx, d); err != nil {
			return "", err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
