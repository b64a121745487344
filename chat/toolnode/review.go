package toolnode

import (
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// Review is the payload of the interrupt a reviewed node stops at: the
// calls waiting for a decision, in the order of the AI message.
type Review struct {
	// MessageID is the id of the AI message that asked for the calls.
	MessageID string       `json:"message_id"`
	Calls     []ReviewCall `json:"calls"`
}

// ReviewCall is one tool call waiting for a decision.
type ReviewCall struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	Args string `json:"args"`
}

// Action is what a reviewer decided about a call.
type Action string

// The actions.
const (
	ActionApprove Action = "approve"
	ActionEdit    Action = "edit"
	ActionReject  Action = "reject"
)

// Decision is a reviewer's answer about one call; resume a reviewed node
// with a []Decision, one per call of the Review, in its order.
type Decision struct {
	Action Action `json:"action"`
	// Args are the edited arguments (JSON), for ActionEdit.
	Args string `json:"args,omitempty"`
	// Reason says why, for ActionReject; the model reads it.
	Reason string `json:"reason,omitempty"`
}

// Approve runs the call as the model asked.
func Approve() Decision { return Decision{Action: ActionApprove} }

// Edit runs the call with args (JSON) instead.
func Edit(args string) Decision { return Decision{Action: ActionEdit, Args: args} }

// Reject does not run the call: it is answered with reason.
func Reject(reason string) Decision { return Decision{Action: ActionReject, Reason: reason} }

// ReviewAll selects every call for review (see WithReview).
func ReviewAll(llms.ToolCall) bool { return true }

// ReviewTools selects the calls of the named tools for review.
func ReviewTools(names ...string) func(llms.ToolCall) bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(c llms.ToolCall) bool { return c.FunctionCall != nil && set[c.FunctionCall.Name] }
}

// check reports what is wrong with decisions answering rev.
func check(rev Review, decisions []Decision) error {
	if len(decisions) != len(rev.Calls) {
		return fmt.Errorf("toolnode: review of message %q: got %d decisions for %d calls", rev.MessageID, len(decisions), len(rev.Calls))
	}
	for i, d := range decisions {
		switch d.Action {
		case ActionApprove, ActionReject:
		case ActionEdit:
			if !validJSON(d.Args) {
				return fmt.Errorf("toolnode: review of message %q: call %q (%s): edited arguments are not JSON: %q", rev.MessageID, rev.Calls[i].ID, rev.Calls[i].Tool, d.Args)
			}
		default:
			return fmt.Errorf("toolnode: review of message %q: call %q (%s): unknown action %q (want approve, edit or reject)", rev.MessageID, rev.Calls[i].ID, rev.Calls[i].Tool, d.Action)
		}
	}
	return nil
}
