package history

import (
	"github.com/stategraph/stategraph/chat"
	"github.com/tmc/langchaingo/llms"
)

// Window bounds a history. A zero bound does not bound.
type Window struct {
	// MaxMessages is the most messages kept.
	MaxMessages int
	// MaxTokens is the most tokens kept, counted by Count.
	MaxTokens int
	// Count counts a message's tokens (default ApproxTokens).
	Count func(chat.Message) int
	// KeepSystem keeps the system messages that open the history, whatever
	// the bounds; they count towards them.
	KeepSystem bool
}

// ApproxTokens estimates a message's tokens: four characters of its text,
// tool-call arguments and tool answers to a token, plus four for the
// message itself. Use a real tokenizer's count (Window.Count) when the
// bound is tight.
func ApproxTokens(m chat.Message) int {
	n := 0
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			n += len(p.Text)
		case llms.ToolCall:
			if p.FunctionCall != nil {
				n += len(p.FunctionCall.Name) + len(p.FunctionCall.Arguments)
			}
		case llms.ToolCallResponse:
			n += len(p.Content)
		}
	}
	return n/4 + 4
}

// Trim returns the part of msgs the window keeps: the opening system
// messages when KeepSystem is set, then the longest recent run of messages
// within the bounds, without tool answers at its start (their call was cut
// off, and providers refuse a tool answer without its call). The result
// shares msgs' elements.
func Trim(msgs []chat.Message, w Window) []chat.Message {
	kept, _ := split(msgs, w)
	return kept
}

// split returns the kept messages and the dropped ones.
func split(msgs []chat.Message, w Window) (kept, dropped []chat.Message) {
	count := w.Count
	if count == nil {
		count = ApproxTokens
	}
	head := 0
	if w.KeepSystem {
		for head < len(msgs) && msgs[head].Role == llms.ChatMessageTypeSystem {
			head++
		}
	}
	n, tokens := head, 0
	for _, m := range msgs[:head] {
		tokens += count(m)
	}
	start := len(msgs)
	for start > head {
		t := count(msgs[start-1])
		if (w.MaxMessages > 0 && n+1 > w.MaxMessages) || (w.MaxTokens > 0 && tokens+t > w.MaxTokens) {
			break
		}
		n, tokens = n+1, tokens+t
		start--
	}
	for start < len(msgs) && msgs[start].Role == llms.ChatMessageTypeTool {
		start++
	}
	kept = append(append([]chat.Message(nil), msgs[:head]...), msgs[start:]...)
	dropped = msgs[head:start]
	return kept, dropped
}
