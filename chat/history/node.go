package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

// TrimNode returns a node that deletes from messages what the window does
// not keep (a chat.Remove marker per message; nothing when all fit).
// Messages without an id cannot be removed and are kept.
func TrimNode[S any](messages *state.Key[S, []chat.Message], w Window) graph.NodeFunc[S] {
	return func(_ context.Context, s S) (state.Update[S], error) {
		_, dropped := split(messages.Get(s), w)
		var rm []chat.Message
		for _, m := range dropped {
			if m.ID != "" {
				rm = append(rm, chat.Remove(m.ID))
			}
		}
		if len(rm) == 0 {
			return state.Update[S]{}, nil
		}
		return state.Writes(messages.Set(rm)), nil
	}
}

// SummaryID is the id of the summary message SummarizeNode writes.
const SummaryID = "history-summary"

// DefaultSummaryPrompt asks for the summary SummarizeNode writes.
const DefaultSummaryPrompt = "Summarise the conversation below for your own later use: the facts, decisions, open questions and the user's goals, briefly. Extend the earlier summary if there is one. Reply with the summary only."

// Summary configures SummarizeNode.
type Summary struct {
	// Window is what stays verbatim; the rest is summarised.
	Window Window
	// Prompt asks for the summary (default DefaultSummaryPrompt).
	Prompt string
	// Options are passed to the model call.
	Options []llms.CallOption
}

// SummarizeNode returns a node that, when the history exceeds the window,
// asks model to summarise what falls outside it (with the earlier summary,
// if any) and rewrites the history as the kept opening system messages
// (Window.KeepSystem), the summary — a system message with id SummaryID —
// and the other kept messages, with their ids. When
// everything fits it writes nothing and calls no model.
func SummarizeNode[S any](messages *state.Key[S, []chat.Message], model llms.Model, o Summary) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		out, err := Summarize(ctx, model, messages.Get(s), o)
		if err != nil || out == nil {
			return state.Update[S]{}, err
		}
		return state.Writes(messages.Set(out)), nil
	}
}

// Summarize does what SummarizeNode does, as a function: when msgs exceed
// the window, it returns the update that rewrites them — a chat.RemoveAll
// marker, the kept opening system messages, the summary (id SummaryID) and
// the other kept messages — for a messages field's Set; nil, without
// calling the model, when everything fits.
func Summarize(ctx context.Context, model llms.Model, msgs []chat.Message, o Summary) ([]chat.Message, error) {
	prompt := o.Prompt
	if prompt == "" {
		prompt = DefaultSummaryPrompt
	}
	var earlier string
	for i := 0; i < len(msgs) && msgs[i].Role == llms.ChatMessageTypeSystem; i++ {
		if msgs[i].ID == SummaryID {
			earlier = msgs[i].Text()
			msgs = append(append([]chat.Message(nil), msgs[:i]...), msgs[i+1:]...)
			break
		}
	}
	kept, dropped := split(msgs, o.Window)
	if len(dropped) == 0 {
		return nil, nil
	}
	var b strings.Builder
	if earlier != "" {
		fmt.Fprintf(&b, "Earlier summary:\n%s\n\n", earlier)
	}
	b.WriteString("Conversation:\n")
	for _, m := range dropped {
		b.WriteString(transcript(m))
	}
	resp, err := model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, prompt),
		llms.TextParts(llms.ChatMessageTypeHuman, b.String()),
	}, o.Options...)
	if err != nil {
		return nil, fmt.Errorf("history: summarise %d messages: %w", len(dropped), err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, fmt.Errorf("history: summarise %d messages: the model returned no choice", len(dropped))
	}
	summary := chat.System("Summary of the conversation so far:\n" + strings.TrimSpace(resp.Choices[0].Content)).WithID(SummaryID)
	head := 0 // the opening system messages stay first
	for head < len(kept) && o.Window.KeepSystem && kept[head].Role == llms.ChatMessageTypeSystem {
		head++
	}
	out := append([]chat.Message{chat.RemoveAll()}, kept[:head]...)
	return append(append(out, summary), kept[head:]...), nil
}

// transcript is one line (or a few) of a message for the summary prompt.
func transcript(m chat.Message) string {
	var b strings.Builder
	if t := m.Text(); t != "" {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, t)
	}
	for _, c := range m.ToolCalls() {
		if c.FunctionCall != nil {
			fmt.Fprintf(&b, "%s called %s(%s)\n", m.Role, c.FunctionCall.Name, c.FunctionCall.Arguments)
		}
	}
	if r, ok := m.ToolResponse(); ok {
		fmt.Fprintf(&b, "tool %s answered: %s\n", r.Name, r.Content)
	}
	return b.String()
}
