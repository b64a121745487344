package toolnode

import (
	"context"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

// Condition is LangGraph's tools_condition: a router that goes to
// toolsNode when the last message is an AI message with tool calls, and to
// graph.End otherwise. Declare both targets:
//
//	g.AddConditionalEdges("agent", toolnode.Condition(Messages, "tools"), "tools", graph.End)
func Condition[S any](messages *state.Key[S, []chat.Message], toolsNode string) graph.Router[S] {
	return graph.Choose(func(_ context.Context, s S) (string, error) {
		if HasToolCalls(messages.Get(s)) {
			return toolsNode, nil
		}
		return graph.End, nil
	})
}

// HasToolCalls reports whether the last of msgs is an AI message with tool
// calls.
func HasToolCalls(msgs []chat.Message) bool {
	last, ok := chat.Last(msgs)
	return ok && last.Role == llms.ChatMessageTypeAI && len(last.ToolCalls()) > 0
}
