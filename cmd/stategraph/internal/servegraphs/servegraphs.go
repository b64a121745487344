// Package servegraphs is the registry `stategraph serve` serves: graphs
// built from the project's examples, offline, on one checkpointer.
//
//   - planexecute: the plan-and-execute agent on the delivery scenario
//     (internal/delivery), with its scripted tools and template planner;
//     input {"goal": …, "constraints": […]} (see Example input).
//   - support: a reply drafted, then an interrupt asking a person to
//     approve it (resume with "yes", or with a note to redraft).
//   - essay: the README's quickstart, drafting an essay three times.
//   - chat: a chat assistant (internal/chatdemo: the prebuilt agent with
//     get_weather and a reviewed calculate), on a scripted model unless
//     ChatModel gives another; input {"messages": [{"type": "human",
//     "content": …}]}, as useStream and agent-chat-ui send it.
package servegraphs

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/agenttrace"
	"github.com/tmc/langchaingo/llms"
)

// Option configures Graphs.
type Option func(*options)

type options struct {
	chatModel llms.Model
	tel       *telemetry.Telemetry
	record    bool // Recorded
}

// ChatModel makes the chat assistant use m instead of the scripted model.
func ChatModel(m llms.Model) Option { return func(o *options) { o.chatModel = m } }

// Traced makes every graph's runs, steps, tasks and checkpoint writes,
// and the model and tool calls of planexecute and chat, spans of tel (the
// studio's trace view records them).
func Traced(tel *telemetry.Telemetry) Option { return func(o *options) { o.tel = tel } }

// Graphs returns the served graphs over saver.
func Graphs(saver checkpoint.Saver, opts ...Option) ([]server.Graph, error) {
	o := options{chatModel: chatdemo.Scripted{}}
	for _, opt := range opts {
		opt(&o)
	}
	model := o.chatModel
	cfg := delivery.New().AgentConfig()
	chatTools := chatdemo.Tools(nil)
	if o.record {
		model, chatTools, cfg = recording(model, chatTools, cfg)
	}
	var observe []graph.CompileOption
	if o.tel != nil {
		model = o.tel.Model(model)
		chatTools = o.tel.Tools(chatTools)
		cfg = agenttrace.Instrument(o.tel, cfg)
		observe = append(observe, graph.WithObserver(o.tel.Observer()))
	}
	ch, err := chatdemo.AgentWithTools(model, chatTools).Graph.Compile(append([]graph.CompileOption{graph.WithCheckpointer(saver), graph.WithName("chat")}, observe...)...)
	if err != nil {
		return nil, fmt.Errorf("chat: %w", err)
	}
	agent, err := nodes.NewAgent(cfg, nodes.WithTokenStreaming())
	if err != nil {
		return nil, fmt.Errorf("planexecute: %w", err)
	}
	pe, err := agent.Compile(append([]graph.CompileOption{graph.WithCheckpointer(saver), graph.WithName("planexecute")}, observe...)...)
	if err != nil {
		return nil, fmt.Errorf("planexecute: %w", err)
	}
	sup, err := support(saver, observe...)
	if err != nil {
		return nil, fmt.Errorf("support: %w", err)
	}
	es, err := essay(saver, observe...)
	if err != nil {
		return nil, fmt.Errorf("essay: %w", err)
	}
	return []server.Graph{
		server.Register("planexecute", pe),
		server.Register("support", sup),
		server.Register("essay", es),
		server.Register("chat", ch),
	}, nil
}

// DeliveryInput is the planexecute graph's input for the delivery
// scenario, as a JSON-ready object.
func DeliveryInput() map[string]any {
	c := delivery.New()
	return map[string]any{"goal": c.Goal(), "constraints": c.Constraints()}
}

// Ticket is the support graph's state.
type Ticket struct {
	Request  string
	Draft    string
	Notes    []string
	Approved bool
}

var (
	ticketRequest  = state.Value("request", func(t *Ticket) *string { return &t.Request })
	ticketDraft    = state.Value("draft", func(t *Ticket) *string { return &t.Draft })
	ticketNotes    = state.Append("notes", func(t *Ticket) *[]string { return &t.Notes })
	ticketApproved = state.Value("approved", func(t *Ticket) *bool { return &t.Approved })
)

func support(saver checkpoint.Saver, opts ...graph.CompileOption) (*graph.Compiled[Ticket], error) {
	return graph.New(state.NewSchema(ticketRequest, ticketDraft, ticketNotes, ticketApproved)).
		AddNode("draft", func(ctx context.Context, t Ticket) (state.Update[Ticket], error) {
			text := "We are sorry about: " + t.Request + "."
			for _, n := range t.Notes {
				text += " " + n
			}
			return state.Writes(ticketDraft.Set(text)), nil
		}).
		AddNode("approve", func(ctx context.Context, t Ticket) (state.Update[Ticket], error) {
			answer, err := graph.Interrupt[string](ctx, map[string]any{"question": "Send this reply? Answer yes, or a note to add.", "draft": t.Draft})
			if err != nil {
				return state.Update[Ticket]{}, err
			}
			if answer == "yes" {
				return state.Writes(ticketApproved.Set(true)), nil
			}
			return state.Writes(ticketNotes.Set([]string{answer})), nil
		}).
		AddEdge(graph.Start, "draft").
		AddEdge("draft", "approve").
		AddConditionalEdges("approve", graph.Choose(func(ctx context.Context, t Ticket) (string, error) {
			if t.Approved {
				return graph.End, nil
			}
			return "draft", nil
		}), "draft", graph.End).
		Compile(append([]graph.CompileOption{graph.WithCheckpointer(saver), graph.WithName("support")}, opts...)...)
}

// Essay is the essay graph's state.
type Essay struct {
	Topic  string
	Drafts []string
}

var (
	essayTopic  = state.Value("topic", func(e *Essay) *string { return &e.Topic })
	essayDrafts = state.Append("drafts", func(e *Essay) *[]string { return &e.Drafts })
)

func essay(saver checkpoint.Saver, opts ...graph.CompileOption) (*graph.Compiled[Essay], error) {
	return graph.New(state.NewSchema(essayTopic, essayDrafts)).
		AddNode("write", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			d := fmt.Sprintf("%s, draft %d", e.Topic, len(e.Drafts)+1)
			return state.Writes(essayDrafts.Set([]string{d})), nil
		}).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(func(ctx context.Context, e Essay) (string, error) {
			if len(e.Drafts) < 3 {
				return "write", nil
			}
			return graph.End, nil
		}), "write", graph.End).
		Compile(append([]graph.CompileOption{graph.WithCheckpointer(saver), graph.WithName("essay")}, opts...)...)
}
