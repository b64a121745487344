package agent

import "github.com/tmc/langchaingo/llms"

// HumanReview makes the tool calls Need selects wait for a human decision
// before they run: toolnode.ReviewAll, or toolnode.ReviewTools("send_email")
// (LangChain's humanInTheLoopMiddleware). Review must survive a resume, so
// it is a node, not a wrapper: the agent gets a review node
// (toolnode.ReviewNode, NodeReview) between the agent and tools nodes,
// and goes there when a call of the model's reply needs review. It stops
// at one interrupt with a toolnode.Review — in the stream, and in History
// as the pending interrupt — answered with
// graph.Resume([]toolnode.Decision{…}); the decisions go to the tools
// node with the calls (an edit as the AI message's new calls). Several
// HumanReview entries review the calls any of them selects; where the
// entry stands in the list does not matter.
type HumanReview struct {
	Base
	// Need selects the calls to review; nil selects none.
	Need func(llms.ToolCall) bool
}

func (h HumanReview) needsReview(c llms.ToolCall) bool { return h.Need != nil && h.Need(c) }
