package toolnode

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
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

// ReviewAll selects every call for review (see ReviewNode).
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

// ReviewNode returns the node that puts the calls need selects before a
// human: it reads the last message of messages, an AI message with tool
// calls, and when need selects any, stops at one interrupt
// (graph.Interrupt) with a Review listing them, resumed with a []Decision,
// one per listed call in order: Approve runs the call, Edit runs it with
// other arguments, Reject answers it with the reviewer's reason instead of
// running it. Then it sends every call to toolsNode (a New node) as
// a task of its own — an edited call with its new arguments, a rejected
// one with the reviewer's reason as its answer, so that the tool messages
// keep the order of the calls — and writes the AI message with its calls
// edited, when an edit changed one. No tool runs before every listed call
// is decided. Add it with its destination declared:
//
//	g.AddNode("review", toolnode.ReviewNode(msgs, "tools", toolnode.ReviewTools("send")), graph.WithDestinations("tools"))
//
// and route to it instead of Dispatch when a call needs review (package
// chat/agent does, with its HumanReview middleware).
func ReviewNode[S any](messages *state.Key[S, []chat.Message], toolsNode string, need func(llms.ToolCall) bool, opts ...ReviewOption) graph.NodeFunc[S] {
	send := sender(messages, toolsNode)
	var ro reviewOptions
	for _, o := range opts {
		o(&ro)
	}
	return func(ctx context.Context, s S) (state.Update[S], error) {
		last, ok := chat.Last(messages.Get(s))
		if !ok || last.Role != llms.ChatMessageTypeAI {
			return state.Update[S]{}, fmt.Errorf("toolnode: review: the last message (id %q) is not an AI message", last.ID)
		}
		calls := last.ToolCalls()
		answers := make([]*string, len(calls))
		edited, err := reviewCalls(ctx, need, last, calls, answers, ro.decided)
		if err != nil {
			return state.Update[S]{}, err
		}
		tasks := make([]callTask, len(calls))
		for i, c := range calls {
			tasks[i] = callTask{messageID: last.ID, call: c, answer: answers[i]}
		}
		sends, err := send(tasks)
		if err != nil {
			return state.Update[S]{}, err
		}
		upd := state.Update[S]{Sends: sends}
		if edited != nil {
			upd.Writes = append(upd.Writes, messages.Set([]chat.Message{*edited}))
		}
		return upd, nil
	}
}

// ReviewOption configures a ReviewNode.
type ReviewOption func(*reviewOptions)

type reviewOptions struct {
	decided func(ctx context.Context, rev Review, decisions []Decision)
}

// OnDecided calls f when the reviewer's decisions have arrived (the
// resume of the node's interrupt) and are valid, before any call is
// sent on: rev is what was asked, decisions answer its calls in order.
// f runs with the node's context, so it can emit events
// (graph.Emit); a node that runs again (a resume after a crash) calls it
// again.
func OnDecided(f func(ctx context.Context, rev Review, decisions []Decision)) ReviewOption {
	return func(o *reviewOptions) { o.decided = f }
}

// NeedsReview reports whether need selects any call of the last of msgs
// (an AI message with tool calls): a router sends to the ReviewNode when
// it does, and Dispatches otherwise.
func NeedsReview(msgs []chat.Message, need func(llms.ToolCall) bool) bool {
	if !HasToolCalls(msgs) || need == nil {
		return false
	}
	last, _ := chat.Last(msgs)
	for _, c := range last.ToolCalls() {
		if need(c) {
			return true
		}
	}
	return false
}
