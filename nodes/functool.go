package nodes

import (
	"context"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// FuncTool adapts a function to langchaingo's tools.Tool (and plan.SideEffecter).
type FuncTool struct {
	ToolName        string
	ToolDescription string
	Fn              func(ctx context.Context, input string) (string, error)
	// Mutates marks a tool that changes the world (see plan.ReadOnlyGuard).
	Mutates bool
}

var (
	_ tools.Tool        = FuncTool{}
	_ plan.SideEffecter = FuncTool{}
)

// Name implements tools.Tool.
func (f FuncTool) Name() string { return f.ToolName }

// Description implements tools.Tool.
func (f FuncTool) Description() string { return f.ToolDescription }

// Call implements tools.Tool.
func (f FuncTool) Call(ctx context.Context, input string) (string, error) { return f.Fn(ctx, input) }

// SideEffects implements plan.SideEffecter.
func (f FuncTool) SideEffects() bool { return f.Mutates }
