package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// NoResponse as the T of New makes an agent without a structured answer:
// its last AI message is the answer, and it has no respond node.
type NoResponse struct{}

// State is the state of an agent made by New.
type State[T any] struct {
	// Messages is the conversation (a chat.Messages field).
	Messages []chat.Message
	// ModelCalls counts the model calls of the thread (a sum field).
	ModelCalls int
	// ToolCalls counts the tool calls of the thread (a sum field).
	ToolCalls int
	// Steps are what the middleware did, in order (an append field; see
	// Record).
	Steps []Step
	// Response is the structured answer, set by the respond node.
	Response T
}

// Keys are the fields of a state S the agent reads and writes (see Build).
type Keys[S, T any] struct {
	// Messages is the conversation; make it with chat.Messages.
	Messages *state.Key[S, []chat.Message]
	// ModelCalls, optional, counts the model calls; make it with
	// state.Sum.
	ModelCalls *state.Key[S, int]
	// ToolCalls, optional, counts the tool calls; make it with state.Sum.
	// Without it, CallLimit's thread tool-call bound has nothing to count.
	ToolCalls *state.Key[S, int]
	// Steps, optional, receives the middleware's steps (Record); make it
	// with state.Append.
	Steps *state.Key[S, []Step]
	// Response, optional, receives the structured answer; nil makes an
	// agent without one.
	Response *state.Key[S, T]
}

// Agent is a prebuilt ReAct agent over State[T].
type Agent[T any] struct {
	// Graph is the agent's graph: extend it, then Compile it.
	Graph *graph.StateGraph[State[T]]
	// Schema is its state's schema; Messages, ModelCalls and Response its
	// fields, for input (see Input) and for nodes you add.
	Schema     *state.Schema[State[T]]
	Messages   *state.Key[State[T], []chat.Message]
	ModelCalls *state.Key[State[T], int]
	ToolCalls  *state.Key[State[T], int]
	Steps      *state.Key[State[T], []Step]
	Response   *state.Key[State[T], T]

	filters []inputFilter
}

// New returns the ReAct agent on model and tools, answering with a T
// (NoResponse: no structured answer; otherwise T should be a struct, whose
// JSON Schema the model is given).
func New[T any](model llms.Model, ts []tools.Tool, opts ...Option) *Agent[T] {
	a := &Agent[T]{
		Messages:   chat.Messages("messages", func(s *State[T]) *[]chat.Message { return &s.Messages }),
		ModelCalls: state.Sum("model_calls", func(s *State[T]) *int { return &s.ModelCalls }),
		ToolCalls:  state.Sum("tool_calls", func(s *State[T]) *int { return &s.ToolCalls }),
		Steps:      state.Append("middleware_steps", func(s *State[T]) *[]Step { return &s.Steps }),
		Response:   state.Value("response", func(s *State[T]) *T { return &s.Response }),
	}
	keys := Keys[State[T], T]{Messages: a.Messages, ModelCalls: a.ModelCalls, ToolCalls: a.ToolCalls, Steps: a.Steps}
	fields := []state.Field[State[T]]{a.Messages, a.ModelCalls, a.ToolCalls, a.Steps}
	if !isNoResponse[T]() {
		keys.Response = a.Response
		fields = append(fields, a.Response)
	}
	a.Schema = state.NewSchema(fields...)
	a.Graph = Build(a.Schema, keys, model, ts, opts...)
	for _, m := range configOf(opts).middleware {
		if f, ok := m.(inputFilter); ok {
			a.filters = append(a.filters, f)
		}
	}
	return a
}

// Input returns the update that starts (or continues) a conversation with
// msgs: typically one chat.Human message. Middleware that cleans messages
// before storage (Redact) applies to them here, so what is stored is clean
// from the first checkpoint on.
func (a *Agent[T]) Input(msgs ...chat.Message) state.Update[State[T]] {
	for _, f := range a.filters {
		msgs = f.filterInput(msgs)
	}
	return state.Writes(a.Messages.Set(msgs))
}

// configOf is the configuration opts make.
func configOf(opts []Option) config {
	c := config{maxCalls: DefaultMaxModelCalls, responsePrompt: DefaultResponsePrompt}
	for _, o := range opts {
		o(&c)
	}
	if c.maxCalls < 1 {
		c.maxCalls = DefaultMaxModelCalls
	}
	return c
}

// Build returns the ReAct agent's graph over a state S of yours: schema
// must hold keys' fields. With keys.Response nil there is no structured
// answer. It panics when keys.Messages or model is nil: the agent cannot
// be built without them.
func Build[S, T any](schema *state.Schema[S], keys Keys[S, T], model llms.Model, ts []tools.Tool, opts ...Option) *graph.StateGraph[S] {
	if keys.Messages == nil || model == nil {
		panic("agent: Build needs keys.Messages and a model")
	}
	c := configOf(opts)
	var review func(llms.ToolCall) bool
	for _, mw := range c.middleware {
		if r, ok := mw.(reviewer); ok {
			if prev := review; prev != nil {
				review = func(tc llms.ToolCall) bool { return prev(tc) || r.needsReview(tc) }
			} else {
				review = r.needsReview
			}
		}
	}
	handoffs := map[string]handoffTool{}
	for _, t := range ts {
		if h, ok := t.(handoffTool); ok {
			handoffs[h.Name()] = h
		}
	}
	g := graph.New(schema)
	m := &modelNode[S, T]{cfg: c, keys: keys, model: model, given: ts, defs: toolnode.Definitions(ts), call: chainModel(c.middleware, generate)}
	g.AddNode(NodeAgent, m.agent)
	toolOpts := c.toolOpts
	if len(c.middleware) > 0 {
		toolOpts = append(append([]toolnode.Option(nil), toolOpts...), toolnode.WithCallHook(toolHook(c.middleware)))
	}
	run := toolnode.New(keys.Messages, ts, toolOpts...)
	if c.toolSource != nil {
		run = func(ctx context.Context, s S) (state.Update[S], error) {
			return toolnode.New(keys.Messages, m.current(ctx), toolOpts...)(ctx, s)
		}
	}
	g.AddNode(NodeTools, m.tools(run))
	g.AddEdge(graph.Start, NodeAgent)
	g.AddEdge(NodeTools, NodeAgent)
	// Each tool call is a task of its own (LangGraph's version 2): a
	// resume runs only the calls that had not finished.
	dispatch := toolnode.Dispatch(keys.Messages, NodeTools, graph.End)
	targets := []string{NodeTools, graph.End}
	if review != nil {
		g.AddNode(NodeReview, m.reviewed(toolnode.ReviewNode(keys.Messages, NodeTools, review, toolnode.OnDecided(recordDecisions))), graph.WithDestinations(NodeTools))
		targets = append(targets, NodeReview)
	}
	if len(handoffs) > 0 {
		g.AddNode(NodeHandoff, handoffNode(keys.Messages, handoffs))
		targets = append(targets, NodeHandoff)
	}
	if keys.Response != nil {
		g.AddNode(NodeRespond, m.respond)
		g.AddEdge(NodeRespond, graph.End)
		targets = append(targets, NodeRespond)
	}
	after := func(ctx context.Context, s S) (graph.Route[S], error) {
		msgs := keys.Messages.Get(s)
		if _, _, ok := handoffCall(msgs, handoffs); ok {
			return graph.Route[S]{To: []string{NodeHandoff}}, nil
		}
		switch {
		case toolnode.NeedsReview(msgs, review):
			return graph.Route[S]{To: []string{NodeReview}}, nil
		case toolnode.HasToolCalls(msgs):
			return dispatch(ctx, s)
		case keys.Response == nil:
			return graph.Route[S]{To: []string{graph.End}}, nil
		}
		if last, ok := chat.Last(msgs); ok && IsLimitStop(last) {
			return graph.Route[S]{To: []string{graph.End}}, nil
		}
		return graph.Route[S]{To: []string{NodeRespond}}, nil
	}
	g.AddConditionalEdges(NodeAgent, after, targets...)
	return g
}

type modelNode[S, T any] struct {
	cfg   config
	keys  Keys[S, T]
	model llms.Model
	given []tools.Tool // the tools given to Build
	defs  []llms.Tool  // their definitions
	call  ModelFunc    // the middleware chain around generate
}

// limitPrefix starts the id of the message the agent writes when the
// model-call limit stops it.
const limitPrefix = "limit-"

// IsLimitStop reports whether m is the message an agent writes when its
// model-call limit stops it.
func IsLimitStop(m chat.Message) bool {
	return m.Role == llms.ChatMessageTypeAI && strings.HasPrefix(m.ID, limitPrefix)
}

// ErrEmptyResponse is a model call that returned no choice.
var ErrEmptyResponse = errors.New("agent: the model returned no choice")

// agent is the agent node: one model call, or the limit's stop message.
func (m *modelNode[S, T]) agent(ctx context.Context, s S) (state.Update[S], error) {
	history := m.keys.Messages.Get(s)
	prev := ""
	if last, ok := chat.Last(history); ok {
		prev = last.ID
	}
	calls := m.count(s)
	if turnCalls(history) >= m.cfg.maxCalls {
		stop := chat.AI(fmt.Sprintf("Stopped: the limit of %d model calls is reached before a final answer.", m.cfg.maxCalls))
		stop.ID = limitPrefix + chat.DeriveID(prev, stop)
		return state.Writes(m.keys.Messages.Set([]chat.Message{stop})), nil
	}
	// The id is fixed before the call, so streamed chunks carry it.
	id := chat.DeriveID(prev, chat.AI(fmt.Sprintf("model call %d", calls+1)))
	opts := make([]llms.CallOption, 0, 2+len(m.cfg.callOpts))
	defs := m.defs
	if m.cfg.toolSource != nil {
		defs = toolnode.Definitions(m.current(ctx))
	}
	if len(defs) > 0 {
		opts = append(opts, llms.WithTools(defs))
	}
	if graph.Streams(ctx, graph.Messages) { // a stream only for a consumer of its tokens
		opts = append(opts, llms.WithStreamingFunc(graph.StreamingFunc(ctx, id)))
	}
	opts = append(opts, m.cfg.callOpts...)
	resp, extra, steps, err := m.generate(ctx, NodeAgent, s, m.cfg.prompt, opts)
	if err != nil {
		return state.Update[S]{}, fmt.Errorf("agent: model call %d: %w", calls+1, err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return state.Update[S]{}, fmt.Errorf("%w (model call %d)", ErrEmptyResponse, calls+1)
	}
	choice := resp.Choices[0]
	reply := chat.AI(choice.Content, choice.ToolCalls...).WithID(id)
	ws := m.counted(m.keys.Messages.Set(append(extra, reply)))
	return state.Writes(m.stepped(ws, steps)...), nil
}

// generate makes one model call of node through the middleware; it
// returns the response, the messages the middleware writes before the
// reply, and the steps it recorded.
func (m *modelNode[S, T]) generate(ctx context.Context, node string, s S, prompt string, opts []llms.CallOption) (*llms.ContentResponse, []chat.Message, []Step, error) {
	msgs := m.keys.Messages.Get(s)
	c := &ModelCall{Node: node, Model: m.model, Prompt: prompt, Messages: m.window(msgs), History: msgs, Options: opts,
		ThreadModelCalls: m.count(s), RunModelCalls: turnCalls(msgs), RunToolCalls: turnToolCalls(msgs)}
	if m.keys.ToolCalls != nil {
		c.ThreadToolCalls = m.keys.ToolCalls.Get(s)
	}
	ctx, rec := withRecorder(ctx, node)
	resp, err := m.call(ctx, c)
	return resp, c.writes, rec.taken(), err
}

// tools wraps the tools node: each call counted in ToolCalls, the
// middleware's steps written with the call's tool message.
func (m *modelNode[S, T]) tools(node graph.NodeFunc[S]) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		n := 0
		if last, ok := chat.Last(m.keys.Messages.Get(s)); ok {
			n = len(last.ToolCalls())
		}
		ctx, rec := withRecorder(ctx, NodeTools)
		u, err := node(ctx, s)
		if err != nil {
			return u, err
		}
		if m.keys.ToolCalls != nil && n > 0 {
			u.Writes = append(u.Writes, m.keys.ToolCalls.Set(n))
		}
		u.Writes = m.stepped(u.Writes, rec.taken())
		return u, nil
	}
}

// current is the tools of the moment: the given ones, then those of the
// tool source whose names are not taken (WithToolSource).
func (m *modelNode[S, T]) current(ctx context.Context) []tools.Tool {
	out := slices.Clip(m.given)
	seen := make(map[string]bool, len(m.given))
	for _, t := range m.given {
		seen[t.Name()] = true
	}
	for _, t := range m.cfg.toolSource(ctx) {
		if t != nil && !seen[t.Name()] {
			seen[t.Name()] = true
			out = append(out, t)
		}
	}
	return out
}

// reviewed wraps the review node: the decisions' steps (recordDecisions)
// are written with its update.
func (m *modelNode[S, T]) reviewed(node graph.NodeFunc[S]) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		ctx, rec := withRecorder(ctx, NodeReview)
		u, err := node(ctx, s)
		if err != nil {
			return u, err
		}
		u.Writes = m.stepped(u.Writes, rec.taken())
		return u, nil
	}
}

// stepped is ws with the steps written to Steps, if there are both.
func (m *modelNode[S, T]) stepped(ws []state.Write[S], steps []Step) []state.Write[S] {
	if m.keys.Steps == nil || len(steps) == 0 {
		return ws
	}
	return append(ws, m.keys.Steps.Set(steps))
}

// count is the thread's model calls so far (0 without a ModelCalls key).
func (m *modelNode[S, T]) count(s S) int {
	if m.keys.ModelCalls == nil {
		return 0
	}
	return m.keys.ModelCalls.Get(s)
}

// counted is ws with one model call added to ModelCalls, if there is the key.
func (m *modelNode[S, T]) counted(ws ...state.Write[S]) []state.Write[S] {
	if m.keys.ModelCalls == nil {
		return ws
	}
	return append(ws, m.keys.ModelCalls.Set(1))
}

// window is the part of msgs the model is sent (WithWindow).
func (m *modelNode[S, T]) window(msgs []chat.Message) []chat.Message {
	if m.cfg.window != nil {
		return history.Trim(msgs, *m.cfg.window)
	}
	return msgs
}

// turnCalls counts the AI messages since the last human message: the
// agent node's model calls in this turn.
func turnCalls(msgs []chat.Message) int {
	n := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != llms.ChatMessageTypeHuman; i-- {
		if msgs[i].Role == llms.ChatMessageTypeAI {
			n++
		}
	}
	return n
}

// turnToolCalls counts the tool calls of the AI messages since the last
// human message.
func turnToolCalls(msgs []chat.Message) int {
	n := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != llms.ChatMessageTypeHuman; i-- {
		if msgs[i].Role == llms.ChatMessageTypeAI {
			n += len(msgs[i].ToolCalls())
		}
	}
	return n
}

func isNoResponse[T any]() bool {
	var zero T
	_, ok := any(zero).(NoResponse)
	return ok
}
