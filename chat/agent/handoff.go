package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

// NodeHandoff is the agent's node that hands the conversation to another
// agent; it is there only when a Handoff is among the agent's tools.
const NodeHandoff = "handoff"

// Handoff is a tool that hands the conversation to another agent: node
// Target of the graph the agent runs in as a subgraph, a graph over P
// (LangGraph's handoff tool, built on graph.ToParent). Give it to New or
// Build among the tools; the model is offered it as a tool without
// parameters. When the model calls it, the agent goes to its handoff node
// instead of the tools node: the call is answered with a tool message
// ("Transferred to Target."; other calls of the same reply are answered as
// not run), and the agent's run ends with graph.ToParent(update), where
// update is Update of the conversation with those answers, and goes to
// Target. The parent adds the agent with AddSubgraph (or
// AddSubgraphMapped) and graph.WithDestinations(Target).
type Handoff[P any] struct {
	// Target is the parent's node to go to.
	Target string
	// ToolName is the tool's name (default "transfer_to_" + Target).
	ToolName string
	// Desc is the tool's description, for the model.
	Desc string
	// Update makes the parent's update from the conversation (ending with
	// the answered handoff call); its Goto gets Target.
	Update func(msgs []chat.Message) state.Update[P]
}

// HandoffTo returns the Handoff to target that writes the conversation to
// the parent's messages field (messages with the same id replace those the
// parent has, so the parent's history continues the agent's).
func HandoffTo[P any](target string, messages *state.Key[P, []chat.Message]) *Handoff[P] {
	return &Handoff[P]{Target: target, Update: func(msgs []chat.Message) state.Update[P] {
		return state.Writes(messages.Set(msgs))
	}}
}

// Name is the tool's name.
func (h *Handoff[P]) Name() string {
	if h.ToolName != "" {
		return h.ToolName
	}
	return "transfer_to_" + h.Target
}

// Description is the tool's description.
func (h *Handoff[P]) Description() string {
	if h.Desc != "" {
		return h.Desc
	}
	return "Hand the conversation to " + h.Target + ", who can take it from here."
}

// InputSchema is an object without properties: the call has no arguments.
func (h *Handoff[P]) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// Call fails: the agent's handoff node acts on the tool's calls, not a
// tool node.
func (h *Handoff[P]) Call(context.Context, string) (string, error) {
	return "", fmt.Errorf("agent: the handoff tool %q is acted on by the agent's handoff node, not called", h.Name())
}

// command is the handoff of the conversation msgs.
func (h *Handoff[P]) command(msgs []chat.Message) error {
	var upd state.Update[P]
	if h.Update != nil {
		upd = h.Update(msgs)
	}
	upd.Goto = append(upd.Goto, h.Target)
	return graph.ToParent(upd)
}

func (h *Handoff[P]) target() string { return h.Target }

// handoffTool is a Handoff of any parent type.
type handoffTool interface {
	Name() string
	target() string
	command(msgs []chat.Message) error
}

// handoffCall returns the first call of the last message of msgs to a
// handoff tool, and the tool.
func handoffCall(msgs []chat.Message, hs map[string]handoffTool) (llms.ToolCall, handoffTool, bool) {
	if len(hs) == 0 {
		return llms.ToolCall{}, nil, false
	}
	last, ok := chat.Last(msgs)
	if !ok || last.Role != llms.ChatMessageTypeAI {
		return llms.ToolCall{}, nil, false
	}
	for _, c := range last.ToolCalls() {
		if c.FunctionCall != nil && hs[c.FunctionCall.Name] != nil {
			return c, hs[c.FunctionCall.Name], true
		}
	}
	return llms.ToolCall{}, nil, false
}

// handoffNode answers the calls of the last message — the handoff call
// with the transfer, the others as not run — and hands off.
func handoffNode[S any](messages *state.Key[S, []chat.Message], hs map[string]handoffTool) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		msgs := messages.Get(s)
		call, h, ok := handoffCall(msgs, hs)
		if !ok {
			return state.Update[S]{}, fmt.Errorf("agent: handoff: the last message has no handoff call")
		}
		last, _ := chat.Last(msgs)
		out := append([]chat.Message(nil), msgs...)
		for _, c := range last.ToolCalls() {
			text := "Not run: the conversation was handed to " + h.target() + "."
			if c.ID == call.ID {
				text = "Transferred to " + h.target() + "."
			}
			name := ""
			if c.FunctionCall != nil {
				name = c.FunctionCall.Name
			}
			m := chat.ToolResult(c.ID, name, text)
			out = append(out, m.WithID(chat.DeriveID("tool:"+c.ID, m)))
		}
		graph.Emit(ctx, Step{Middleware: "handoff", Action: "handed off", Node: NodeHandoff,
			Detail: fmt.Sprintf("to %s (call %q)", h.target(), call.ID)})
		return state.Update[S]{}, h.command(out)
	}
}
