package effect

import (
	"context"
	"encoding/json"

	"github.com/tmc/langchaingo/tools"
)

// Tool is a langchaingo tools.Tool whose calls go through the ledger (Do).
// It keeps what agents read from a tool: its input schema
// (InputSchema, for a nodes/tool.SchemaTool) and that it has side effects
// (SideEffects, for plan.ReadOnlyGuard). Make one with Wrap.
type Tool struct {
	tools.Tool
	rec Reconciler
}

var _ tools.Tool = (*Tool)(nil)

// Option configures Wrap.
type Option func(*Tool)

// WithReconcile gives the tool a reconcile hook for its in-doubt calls,
// in place of the one the wrapped tool implements (Reconciler), if any.
func WithReconcile(r Reconciler) Option { return func(t *Tool) { t.rec = r } }

// Wrap returns tl with its calls recorded in the ledger. A tool that
// implements Reconciler is asked about its in-doubt calls; one that does
// not raises an interrupt for a person. Wrap only tools with side
// effects: read-only and idempotent tools are simply run again after a
// crash, as without the ledger.
func Wrap(tl tools.Tool, opts ...Option) *Tool {
	t := &Tool{Tool: tl}
	if r, ok := tl.(Reconciler); ok {
		t.rec = r
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Call implements tools.Tool through Do. The wrapped tool finds the call's
// idempotency key with Key(ctx).
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	return Do(ctx, t.Tool.Name(), input, t.rec, func(ctx context.Context) (string, error) {
		return t.Tool.Call(ctx, input)
	})
}

// Unwrap returns the wrapped tool.
func (t *Tool) Unwrap() tools.Tool { return t.Tool }

// InputSchema is the wrapped tool's input schema when it has one, else
// nil.
func (t *Tool) InputSchema() json.RawMessage {
	if s, ok := t.Tool.(interface{ InputSchema() json.RawMessage }); ok {
		return s.InputSchema()
	}
	return nil
}

// SideEffects reports true: a tool goes through the ledger because it
// changes the world.
func (t *Tool) SideEffects() bool { return true }
