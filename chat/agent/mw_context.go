package agent

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/tmc/langchaingo/llms"
)

// EditContext is a hook that edits the messages sent before each model
// call (LangChain's contextEditingMiddleware): drop old tool results,
// shorten, reorder, add a note. It changes what the model is sent, not
// the stored history (a middleware that must change the history writes
// with ModelCall.Write). A call whose messages it changes is a Step
// ("context", "edited").
type EditContext func(ctx context.Context, msgs []chat.Message) []chat.Message

// WrapModel edits call.Messages, then calls next.
func (f EditContext) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	before := call.Messages
	call.Messages = f(ctx, before)
	if changed(before, call.Messages) {
		Record(ctx, Step{Middleware: "context", Action: "edited",
			Detail: fmt.Sprintf("%d messages sent instead of %d", len(call.Messages), len(before))})
	}
	return next(ctx, call)
}

// WrapTool calls run.
func (EditContext) WrapTool(ctx context.Context, _ llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	return run(ctx)
}

// ClearToolResults returns an EditContext that replaces the content of
// all but the last keep tool results with placeholder (LangChain's
// ClearToolUsesEdit): the calls stay, so the model knows they were made.
func ClearToolResults(keep int, placeholder string) EditContext {
	return func(_ context.Context, msgs []chat.Message) []chat.Message {
		seen := 0
		var out []chat.Message
		for i := len(msgs) - 1; i >= 0; i-- {
			r, ok := msgs[i].ToolResponse()
			if !ok {
				continue
			}
			if seen++; seen <= keep || r.Content == placeholder {
				continue
			}
			if out == nil {
				out = append([]chat.Message(nil), msgs...)
			}
			out[i] = chat.ToolResult(r.ToolCallID, r.Name, placeholder).WithID(msgs[i].ID)
		}
		if out == nil {
			return msgs
		}
		return out
	}
}

// changed reports whether b differs from a, message by message (by id and
// text).
func changed(a, b []chat.Message) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Text() != b[i].Text() || toolText(a[i]) != toolText(b[i]) {
			return true
		}
	}
	return false
}

func toolText(m chat.Message) string {
	r, _ := m.ToolResponse()
	return r.Content
}
