// Handoff shows two chat agents handing a conversation over: a triage
// agent reads the customer's message and hands the conversation to a
// billing agent with a handoff tool (agent.HandoffTo, built on
// graph.ToParent); billing looks the order up with a tool and answers.
// Both agents are built with agent.Build over one state and run as
// subgraphs of a graph over it, so billing continues triage's
// conversation. The billing agent's middleware redacts the card number
// the customer typed before any model sees it or it is stored, and bounds
// its calls. The models are scripted: the program runs offline.
//
//	go run ./examples/handoff
//
// It prints each message with the agent that wrote it, then the
// middleware's steps.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Desk is the state both agents share.
type Desk struct {
	Messages   []chat.Message
	ModelCalls int
	Steps      []agent.Step
}

var (
	messages = chat.Messages("messages", func(s *Desk) *[]chat.Message { return &s.Messages })
	calls    = state.Sum("model_calls", func(s *Desk) *int { return &s.ModelCalls })
	steps    = state.Append("middleware_steps", func(s *Desk) *[]agent.Step { return &s.Steps })
	schema   = state.NewSchema[Desk](messages, calls, steps)
	keys     = agent.Keys[Desk, agent.NoResponse]{Messages: messages, ModelCalls: calls, Steps: steps}
)

type orderArgs struct {
	Order string `json:"order"`
}

// lookup is the billing agent's tool.
var lookup = tool.New("lookup_order", "an order's amount and status", func(_ context.Context, a orderArgs) (string, error) {
	if a.Order != "A-1042" {
		return "", fmt.Errorf("no order %q", a.Order)
	}
	return "order A-1042: 42 EUR, paid, eligible for a refund", nil
})

// App is the graph: START → triage, which hands off to billing.
func App(model llms.Model) (*graph.Compiled[Desk], error) {
	triage, err := agent.Build(schema, keys, model, []tools.Tool{agent.HandoffTo("billing", messages)},
		agent.WithPrompt(TriagePrompt)).Compile()
	if err != nil {
		return nil, err
	}
	billing, err := agent.Build(schema, keys, model, []tools.Tool{lookup},
		agent.WithPrompt(BillingPrompt),
		agent.WithMiddleware(agent.Redact{}, agent.CallLimit{RunModelCalls: 4})).Compile()
	if err != nil {
		return nil, err
	}
	return graph.New(schema).
		AddSubgraph("triage", triage, graph.WithDestinations("billing")).
		AddSubgraph("billing", billing).
		AddEdge(graph.Start, "triage").
		Compile(graph.WithCheckpointer(memory.New()))
}

// Run runs the conversation and prints it to w.
func Run(ctx context.Context, w io.Writer) (Desk, error) {
	app, err := App(&Scripted{})
	if err != nil {
		return Desk{}, err
	}
	in := state.Writes(messages.Set([]chat.Message{chat.Human("Hi, I was charged twice for order A-1042 on my card 4111 1111 1111 1111. Can I get a refund?")}))
	var out Desk
	for ev, err := range app.Stream(ctx, in, graph.WithThread("ticket-1"), graph.StreamModes(graph.Updates, graph.Values)) {
		if err != nil {
			return out, err
		}
		switch ev.Mode {
		case graph.Updates:
			fmt.Fprintf(w, "— %s done\n", ev.Node)
		case graph.Values:
			out = ev.State
		}
	}
	for _, m := range out.Messages {
		fmt.Fprintln(w, line(m))
	}
	for _, s := range out.Steps {
		fmt.Fprintf(w, "step: %s %s: %s\n", s.Middleware, s.Action, s.Detail)
	}
	return out, nil
}

func line(m chat.Message) string {
	if r, ok := m.ToolResponse(); ok {
		return fmt.Sprintf("tool %s: %s", r.Name, r.Content)
	}
	var calls []string
	for _, c := range m.ToolCalls() {
		calls = append(calls, c.FunctionCall.Name+c.FunctionCall.Arguments)
	}
	parts := []string{string(m.Role) + ":"}
	if t := m.Text(); t != "" {
		parts = append(parts, t)
	}
	if len(calls) > 0 {
		parts = append(parts, "[calls "+strings.Join(calls, ", ")+"]")
	}
	return strings.Join(parts, " ")
}

func main() {
	if _, err := Run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "handoff:", err)
		os.Exit(1)
	}
}
