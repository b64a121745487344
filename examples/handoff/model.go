package main

import (
	"context"
	"errors"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// The agents' prompts; Scripted tells them apart by these.
const (
	TriagePrompt  = "You are triage. Hand billing questions to billing."
	BillingPrompt = "You are billing. Look the order up, then answer."
)

// Scripted stands in for a model: it answers as triage or billing would,
// by the system prompt of the call and what the conversation holds.
type Scripted struct{}

// GenerateContent answers one call.
func (Scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if len(msgs) == 0 {
		return nil, errors.New("scripted: no messages")
	}
	system, all := text(msgs[0]), ""
	for _, m := range msgs {
		all += text(m) + "\n"
	}
	var c llms.ContentChoice
	switch {
	case strings.HasPrefix(system, "You are triage"):
		c.ToolCalls = []llms.ToolCall{call("call_handoff", "transfer_to_billing", `{}`)}
	case strings.HasPrefix(system, "You are billing") && !strings.Contains(all, "order A-1042: 42 EUR"):
		c.ToolCalls = []llms.ToolCall{call("call_lookup", "lookup_order", `{"order":"A-1042"}`)}
	case strings.HasPrefix(system, "You are billing"):
		c.Content = "I have refunded the duplicate charge of 42 EUR for order A-1042; it reaches your card within 3 days."
	default:
		return nil, errors.New("scripted: unknown agent")
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&c}}, nil
}

// Call answers a single prompt.
func (s Scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func text(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			b.WriteString(p.Text)
		case llms.ToolCallResponse:
			b.WriteString(p.Content)
		}
	}
	return b.String()
}
