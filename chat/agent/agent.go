package agent

import (
	"context"
	"errors"
	"fmt"
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
	Response   *state.Key[State[T], T]
}

// New returns the ReAct agent on model and tools, answering with a T
// (NoResponse: no structured answer; otherwise T should be a struct, whose
// JSON Schema the model is given).
func New[T any](model llms.Model, ts []tools.Tool, opts ...Option) *Agent[T] {
	a := &Agent[T]{
		Messages:   chat.Messages("messages", func(s *State[T]) *[]chat.Message { return &s.Messages }),
		ModelCalls: state.Sum("model_calls", func(s *State[T]) *int { return &s.ModelCalls }),
		Response:   state.Value("response", func(s *State[T]) *T { return &s.Response }),
	}
	keys := Keys[State[T], T]{Messages: a.Messages, ModelCalls: a.ModelCalls}
	fields := []state.Field[State[T]]{a.Messages, a.ModelCalls}
	if !isNoResponse[T]() {
		keys.Response = a.Response
		fields = append(fields, a.Response)
	}
	a.Schema = state.NewSchema(fields...)
	a.Graph = Build(a.Schema, keys, model, ts, opts...)
	return a
}

// Input returns the update that starts (or continues) a conversation with
// msgs: typically one chat.Human message.
func (a *Agent[T]) Input(msgs ...chat.Message) state.Update[State[T]] {
	return state.Writes(a.Messages.Set(msgs))
}

// Build returns the ReAct agent's graph over a state S of yours: schema
// must hold keys' fields. With keys.Response nil there is no structured
// answer. It panics when keys.Messages or model is nil: the agent cannot
// be built without them.
func Build[S, T any](schema *state.Schema[S], keys Keys[S, T], model llms.Model, ts []tools.Tool, opts ...Option) *graph.StateGraph[S] {
	if keys.Messages == nil || model == nil {
		panic("agent: Build needs keys.Messages and a model")
	}
	c := config{maxCalls: DefaultMaxModelCalls, responsePrompt: DefaultResponsePrompt}
	for _, o := range opts {
		o(&c)
	}
	if c.maxCalls < 1 {
		c.maxCalls = DefaultMaxModelCalls
	}
	g := graph.New(schema)
	m := &modelNode[S, T]{cfg: c, keys: keys, model: model, defs: toolnode.Definitions(ts)}
	g.AddNode(NodeAgent, m.agent)
	g.AddNode(NodeTools, toolnode.New(keys.Messages, ts, c.toolOpts...))
	g.AddEdge(graph.Start, NodeAgent)
	g.AddEdge(NodeTools, NodeAgent)
	// Each tool call is a task of its own (LangGraph's version 2): a
	// resume runs only the calls that had not finished.
	dispatch := toolnode.Dispatch(keys.Messages, NodeTools, graph.End)
	targets := []string{NodeTools, graph.End}
	if c.review != nil {
		g.AddNode(NodeReview, toolnode.ReviewNode(keys.Messages, NodeTools, c.review), graph.WithDestinations(NodeTools))
		targets = append(targets, NodeReview)
	}
	if keys.Response != nil {
		g.AddNode(NodeRespond, m.respond)
		g.AddEdge(NodeRespond, graph.End)
		targets = append(targets, NodeRespond)
	}
	after := func(ctx context.Context, s S) (graph.Route[S], error) {
		msgs := keys.Messages.Get(s)
		switch {
		case toolnode.NeedsReview(msgs, c.review):
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
	defs  []llms.Tool
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
	if len(m.defs) > 0 {
		opts = append(opts, llms.WithTools(m.defs))
	}
	if graph.Streams(ctx, graph.Messages) { // a stream only for a consumer of its tokens
		opts = append(opts, llms.WithStreamingFunc(graph.StreamingFunc(ctx, id)))
	}
	opts = append(opts, m.cfg.callOpts...)
	resp, err := m.model.GenerateContent(ctx, m.request(m.cfg.prompt, history), opts...)
	if err != nil {
		return state.Update[S]{}, fmt.Errorf("agent: model call %d: %w", calls+1, err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return state.Update[S]{}, fmt.Errorf("%w (model call %d)", ErrEmptyResponse, calls+1)
	}
	choice := resp.Choices[0]
	reply := chat.AI(choice.Content, choice.ToolCalls...).WithID(id)
	return state.Writes(m.counted(m.keys.Messages.Set([]chat.Message{reply}))...), nil
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

// request is the system prompt (if any) and the history as model input.
func (m *modelNode[S, T]) request(prompt string, msgs []chat.Message) []llms.MessageContent {
	if m.cfg.window != nil {
		msgs = history.Trim(msgs, *m.cfg.window)
	}
	out := make([]llms.MessageContent, 0, len(msgs)+1)
	if prompt != "" {
		out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, prompt))
	}
	return append(out, chat.Contents(msgs)...)
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

func isNoResponse[T any]() bool {
	var zero T
	_, ok := any(zero).(NoResponse)
	return ok
}
