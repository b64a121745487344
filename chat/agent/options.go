package agent

import (
	"context"

	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// DefaultMaxModelCalls bounds the agent's model calls unless
// WithMaxModelCalls says otherwise.
const DefaultMaxModelCalls = 10

// Node names of the agent's graph.
const (
	NodeAgent   = "agent"
	NodeTools   = "tools"
	NodeRespond = "respond"
	// NodeReview is there only with the HumanReview middleware.
	NodeReview = "review"
)

// StructuredMode is how the respond node asks for the structured answer.
type StructuredMode uint8

const (
	// StructuredAuto picks StructuredJSON for langchaingo's Ollama client
	// and StructuredTool for every other model.
	StructuredAuto StructuredMode = iota
	// StructuredTool offers one tool, "respond", whose parameters are the
	// answer's JSON Schema, and forces the model to call it (OpenAI's
	// tool_choice); a reply in text is read as JSON instead.
	StructuredTool
	// StructuredJSON asks for JSON (llms.WithJSONMode) with the schema in
	// the prompt.
	StructuredJSON
)

// Option configures the agent.
type Option func(*config)

type config struct {
	prompt         string
	responsePrompt string
	maxCalls       int
	mode           StructuredMode
	callOpts       []llms.CallOption
	toolOpts       []toolnode.Option
	middleware     []Middleware
	window         *history.Window
	toolSource     func(context.Context) []tools.Tool
}

// WithWindow sends the model only the part of the history the window keeps
// (history.Trim); the state keeps it all. To shrink the state itself, add
// a history.TrimNode or history.SummarizeNode to your graph.
func WithWindow(w history.Window) Option { return func(c *config) { c.window = &w } }

// WithPrompt sets the system prompt, sent before the history on every model
// call of the agent node (not stored in the state).
func WithPrompt(p string) Option { return func(c *config) { c.prompt = p } }

// WithResponsePrompt sets the system prompt of the respond node's call
// (default DefaultResponsePrompt). An agent without a structured answer has
// no respond node, and ignores it, as it ignores WithStructuredMode.
func WithResponsePrompt(p string) Option { return func(c *config) { c.responsePrompt = p } }

// WithMaxModelCalls bounds the agent node's model calls in a turn — the AI
// messages since the last human message, so the bound holds across
// interrupts, resumes and processes — (n < 1: DefaultMaxModelCalls); the
// respond node's one call comes on top.
func WithMaxModelCalls(n int) Option { return func(c *config) { c.maxCalls = n } }

// WithStructuredMode says how the structured answer is asked for (default
// StructuredAuto).
func WithStructuredMode(m StructuredMode) Option { return func(c *config) { c.mode = m } }

// WithCallOptions adds options to every model call (temperature, model,
// max tokens…), after the agent's own.
func WithCallOptions(opts ...llms.CallOption) Option {
	return func(c *config) { c.callOpts = append(c.callOpts, opts...) }
}

// WithToolOptions configures the tools node: errors (toolnode.WithErrorHandler,
// toolnode.PropagateErrors) and a call hook (toolnode.WithCallHook). The
// agent sends the tools node one call per task, so toolnode.WithMaxParallel
// has nothing to bound (bound a step's tasks with graph.WithMaxConcurrency).
// Review of tool calls is the HumanReview middleware; a tool-call hook of
// WithToolOptions runs outside the middleware's WrapTool.
func WithToolOptions(opts ...toolnode.Option) Option {
	return func(c *config) { c.toolOpts = append(c.toolOpts, opts...) }
}

// WithToolSource adds the tools source returns to the ones given to New
// or Build, asking it again at each use: each model call of the agent
// node offers the tools of that moment, and the tools node runs a call
// with the tool of that name source returns when the call runs (a tool
// gone by then is a toolnode.ErrUnknownTool for the tools node's error
// handler, by default an error message the model reads). It is how the agent follows a tool list that changes during a
// thread, such as an MCP server's on notifications/tools/list_changed:
//
//	agent.WithToolSource(func(context.Context) []tools.Tool { return client.Tools() })
//
// A tool source's tool named like a given tool, or like an earlier one of
// the source's, is left out. Handoff tools must be among the given
// tools: the graph's handoff node is built from them.
func WithToolSource(source func(ctx context.Context) []tools.Tool) Option {
	return func(c *config) { c.toolSource = source }
}
