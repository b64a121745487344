package tool

import (
	"context"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// Func adapts a function to langchaingo's tools.Tool (and plan.SideEffecter).
type Func struct {
	ToolName        string
	ToolDescription string
	Fn              func(ctx context.Context, input string) (string, error)
	// Mutates marks a tool that changes the world (see plan.ReadOnlyGuard).
	Mutates bool
}

var (
	_ tools.Tool        = Func{}
	_ plan.SideEffecter = Func{}
)

// Name implements tools.Tool.
func (f Func) Name() string { return f.ToolName }

// Description implements tools.Tool.
func (f Func) Description() string { return f.ToolDescription }

// Call implements tools.Tool.
func (f Func) Call(ctx context.Context, input string) (string, error) { return f.Fn(ctx, input) }

// SideEffects implements plan.SideEffecter.
func (f Func) SideEffects() bool { return f.Mutates }
