package planexec

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// SlowToolsEnv is a test hook: a comma-separated list of tool names whose
// calls block until the run is cancelled, so a test's Ctrl-C lands in the
// middle of a step, deterministically.
const SlowToolsEnv = "PLANEXECUTE_SLOW_TOOLS"

// toolCall is what a watched tool reports on the Custom stream when called.
type toolCall struct {
	Tool  string
	Input string
}

// toolBlocked is what a slow tool reports before it blocks.
type toolBlocked struct{ Tool string }

// watchedTool reports each call of a tool on the run's Custom stream
// (graph.Emit), so the progress shows every tool call as it happens.
type watchedTool struct {
	tools.Tool
	slow  bool          // the test hook: block until ctx is done
	delay time.Duration // -delay: take this long before answering
}

// Call reports the call and calls the tool, after -delay; with the test
// hook it blocks until ctx is done. A Ctrl-C during the delay cuts the
// call off, as it would a slow real service.
func (t watchedTool) Call(ctx context.Context, input string) (string, error) {
	graph.Emit(ctx, toolCall{Tool: t.Name(), Input: input})
	if t.slow {
		graph.Emit(ctx, toolBlocked{Tool: t.Name()})
		<-ctx.Done()
		return "", ctx.Err()
	}
	if t.delay > 0 {
		timer := time.NewTimer(t.delay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-timer.C:
		}
	}
	return t.Tool.Call(ctx, input)
}

// SideEffects keeps the wrapped tool's answer for plan.ReadOnlyGuard.
func (t watchedTool) SideEffects() bool {
	se, ok := t.Tool.(plan.SideEffecter)
	return ok && se.SideEffects()
}

// watchTools wraps every tool: each call takes delay; those named in slow
// block (the test hook).
func watchTools(ts []tools.Tool, slow string, delay time.Duration) []tools.Tool {
	blocked := map[string]bool{}
	for _, name := range strings.Split(slow, ",") {
		blocked[strings.TrimSpace(name)] = true
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = watchedTool{Tool: t, slow: blocked[t.Name()], delay: delay}
	}
	return out
}

// slowTools reads the test hook's environment variable.
func slowTools() string { return os.Getenv(SlowToolsEnv) }
