package agent

import (
	"context"
	"sync"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/tmc/langchaingo/llms"
)

// Middleware wraps the agent's model calls (of the agent and respond
// nodes) and tool calls (of the tools node). The list given to
// WithMiddleware applies in order: the first is the outermost, so it sees
// a call first and its result last. A middleware calls next to go on, or
// returns without calling it to answer the call itself (a fallback, a
// limit, a cache).
//
// Embed Base to implement only the wrap point you need. What a
// middleware does should show: it calls Record for each step it takes,
// which emits the Step as a graph.Custom event and writes it to the
// state's Steps field, in the same step as the call's own writes, so it
// is in History too.
type Middleware interface {
	// WrapModel wraps one model call. call may be changed before next
	// (messages, prompt, options, model); the response may be changed
	// after it: the reply stored is the response's first choice.
	WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error)
	// WrapTool wraps one tool call; run calls the tool (or the next
	// middleware). What it returns is the call's result, an error going
	// to the tools node's error handler (toolnode.WithErrorHandler).
	WrapTool(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error)
}

// ModelFunc makes a model call: the next middleware's, or, at the end of
// the chain, the call itself (call.Model.GenerateContent with the prompt
// and messages).
type ModelFunc func(ctx context.Context, call *ModelCall) (*llms.ContentResponse, error)

// Base is a Middleware that passes every call on; embed it to implement
// only one wrap point.
type Base struct{}

// WrapModel calls next.
func (Base) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	return next(ctx, call)
}

// WrapTool calls run.
func (Base) WrapTool(ctx context.Context, _ llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	return run(ctx)
}

// ModelCall is one model call as middleware sees it.
type ModelCall struct {
	// Node is the node calling: NodeAgent or NodeRespond.
	Node string
	// Model is the model called (a fallback changes it).
	Model llms.Model
	// Prompt is the system prompt, sent before Messages ("" for none).
	Prompt string
	// Messages are the messages sent (WithWindow already applied).
	Messages []chat.Message
	// History is the whole history in the state, of which Messages is
	// the part sent; a middleware that rewrites the stored history
	// (Summarize) starts from it. Do not modify its elements.
	History []chat.Message
	// Options are the call's options.
	Options []llms.CallOption
	// Calls made so far, before this one: model calls of the thread
	// (State.ModelCalls) and of the run (the AI messages since the last
	// human message), and tool calls of the thread (State.ToolCalls) and
	// of the run (the tool calls of those AI messages).
	ThreadModelCalls, RunModelCalls, ThreadToolCalls, RunToolCalls int

	writes []chat.Message
}

// Write adds messages to the node's write to the messages field, before
// the reply: a replacement of a stored message (same id), a chat.Remove
// marker, a summary. The model does not see them unless the middleware
// also puts them in Messages.
func (c *ModelCall) Write(msgs ...chat.Message) { c.writes = append(c.writes, msgs...) }

// Step is one thing a middleware did: it goes to the stream as a
// graph.Custom event and to the state's Steps field (see Record).
type Step struct {
	// Middleware names the middleware ("fallback", "limit", "redact"…).
	Middleware string `json:"middleware"`
	// Action is what it did ("fell back", "truncated", "summarized"…).
	Action string `json:"action"`
	// Detail says more, for a person; never the data a middleware hides.
	Detail string `json:"detail,omitempty"`
	// Node is the node whose call it wrapped (set by Record).
	Node string `json:"node,omitempty"`
}

type recorderKey struct{}

// recorder collects the steps of one node's calls.
type recorder struct {
	node  string
	mu    sync.Mutex
	steps []Step
}

func withRecorder(ctx context.Context, node string) (context.Context, *recorder) {
	r := &recorder{node: node}
	return context.WithValue(ctx, recorderKey{}, r), r
}

func (r *recorder) taken() []Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.steps
}

// Record reports a step a middleware took in a call it wraps: a
// graph.Custom event now, and a write to the state's Steps field with
// the node's other writes (when the agent has the field). Outside an
// agent's call it only emits the event.
func Record(ctx context.Context, s Step) {
	if r, ok := ctx.Value(recorderKey{}).(*recorder); ok {
		s.Node = r.node
		r.mu.Lock()
		r.steps = append(r.steps, s)
		r.mu.Unlock()
	}
	graph.Emit(ctx, s)
}

// WithMiddleware adds middleware around the agent's model and tool calls,
// after any given before (see Middleware).
func WithMiddleware(mws ...Middleware) Option {
	return func(c *config) {
		for _, m := range mws {
			if m != nil {
				c.middleware = append(c.middleware, m)
			}
		}
	}
}

// chainModel returns last wrapped in mws, the first outermost.
func chainModel(mws []Middleware, last ModelFunc) ModelFunc {
	h := last
	for i := len(mws) - 1; i >= 0; i-- {
		mw, next := mws[i], h
		h = func(ctx context.Context, c *ModelCall) (*llms.ContentResponse, error) {
			return mw.WrapModel(ctx, c, next)
		}
	}
	return h
}

// toolHook is mws as one toolnode.CallHook, the first outermost.
func toolHook(mws []Middleware) func(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	return func(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
		h := run
		for i := len(mws) - 1; i >= 0; i-- {
			mw, next := mws[i], h
			h = func(ctx context.Context) (string, error) { return mw.WrapTool(ctx, call, next) }
		}
		return h(ctx)
	}
}

// generate is the end of the model chain: the call itself.
func generate(ctx context.Context, c *ModelCall) (*llms.ContentResponse, error) {
	out := make([]llms.MessageContent, 0, len(c.Messages)+1)
	if c.Prompt != "" {
		out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, c.Prompt))
	}
	return c.Model.GenerateContent(ctx, append(out, chat.Contents(c.Messages)...), c.Options...)
}

// inputFilter is a middleware that changes the messages given to
// Agent.Input before they are stored (Redact).
type inputFilter interface {
	filterInput(msgs []chat.Message) []chat.Message
}

// reviewer is a middleware that puts tool calls before a person
// (HumanReview): the agent gets a review node.
type reviewer interface {
	needsReview(llms.ToolCall) bool
}
