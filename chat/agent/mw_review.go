package agent

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/tmc/langchaingo/llms"
)

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
//
// Each decision is a Step (Middleware "review"; Action "approved",
// "edited" or "rejected"; Detail naming the call and tool asked about,
// and a rejection's reason), recorded when the resume brings the
// decisions: a graph.Custom event and a write to Steps with the review
// node's update. The arguments are not repeated in the Step: the asked
// ones are in the AI message, the edited ones replace them there.
type HumanReview struct {
	Base
	// Need selects the calls to review; nil selects none.
	Need func(llms.ToolCall) bool
}

func (h HumanReview) needsReview(c llms.ToolCall) bool { return h.Need != nil && h.Need(c) }

// reviewActions are the Step actions of the review decisions.
var reviewActions = map[toolnode.Action]string{
	toolnode.ActionApprove: "approved",
	toolnode.ActionEdit:    "edited",
	toolnode.ActionReject:  "rejected",
}

// recordDecisions records one Step per decision of a review (see
// HumanReview); the review node checked them already.
func recordDecisions(ctx context.Context, rev toolnode.Review, decisions []toolnode.Decision) {
	for i, d := range decisions {
		c := rev.Calls[i]
		detail := fmt.Sprintf("call %q (%s) of message %q", c.ID, c.Tool, rev.MessageID)
		switch {
		case d.Action == toolnode.ActionEdit && d.Args == c.Args:
			detail += ": the edit left the arguments as asked"
		case d.Action == toolnode.ActionReject && d.Reason != "":
			detail += ": " + d.Reason
		}
		Record(ctx, Step{Middleware: "review", Action: reviewActions[d.Action], Detail: detail})
	}
}
