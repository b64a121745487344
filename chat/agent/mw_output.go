package agent

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/store"
	"github.com/tmc/langchaingo/llms"
)

// DefaultMaxToolOutput is ToolOutputLimit's bound when MaxBytes is zero.
const DefaultMaxToolOutput = 16 << 10

// ToolOutputLimit caps what a tool call's result puts into the history,
// and so into every later prompt: a result over MaxBytes is cut to its
// first MaxBytes bytes (at a character boundary) and a note saying how
// much was cut. With a long-term store — Store, or the one the graph was
// compiled with (graph.WithStore) — the whole result is stored first, as
// {"call_id", "tool", "output"} under Namespace (default
// ["tool_outputs", thread id]) and key the call's id, and the note names
// where. Each cut is a Step ("output", "truncated" or "stored").
type ToolOutputLimit struct {
	Base
	// MaxBytes bounds a result (0: DefaultMaxToolOutput).
	MaxBytes int
	// Store keeps whole results; nil: the graph's store, if any.
	Store *store.Store
	// Namespace is where results are stored.
	Namespace []string
}

// WrapTool runs the call and caps its result.
func (l ToolOutputLimit) WrapTool(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	out, err := run(ctx)
	limit := l.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxToolOutput
	}
	if err != nil || len(out) <= limit {
		return out, err
	}
	name := ""
	if call.FunctionCall != nil {
		name = call.FunctionCall.Name
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	note := fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", cut, len(out))
	action := "truncated"
	st := l.Store
	if st == nil {
		st = store.From(ctx)
	}
	if st != nil {
		ns := l.Namespace
		if len(ns) == 0 {
			ns = []string{"tool_outputs"}
			if info, ok := graph.RunInfo(ctx); ok && info.ThreadID != "" {
				ns = append(ns, info.ThreadID)
			}
		}
		if err := st.Put(ctx, ns, call.ID, map[string]any{"call_id": call.ID, "tool": name, "output": out}); err != nil {
			return "", fmt.Errorf("agent: ToolOutputLimit: store the %d-byte result of call %q (%s): %w", len(out), call.ID, name, err)
		}
		note = fmt.Sprintf("\n[output truncated: %d of %d bytes shown; the whole output is in the store, namespace %q, key %q]", cut, len(out), store.EncodeNamespace(ns), call.ID)
		action = "stored"
	}
	Record(ctx, Step{Middleware: "output", Action: action,
		Detail: fmt.Sprintf("tool %q (call %q) returned %d bytes; %d kept", name, call.ID, len(out), cut)})
	return out[:cut] + note, nil
}
