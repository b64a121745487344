package toolnode

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

// taskKey marks the one message of a call's task input (see Dispatch): an
// AI message with the AI message's id and the one call, whose
// additional_kwargs hold taskKey: true, or, for a call a reviewer
// rejected, the answer it gets instead of running. It lives only in Send
// inputs (stored with the schedule, as LangChain's message JSON); the
// task writes a tool message.
const taskKey = "stategraph_toolnode_task"

// Dispatch is tools_condition as LangGraph's version 2 of the ReAct agent
// uses it: a router that sends each tool call of the last AI message that
// no tool message answers yet to toolsNode as a task of its own
// (graph.Send), and goes to otherwise when there is none. Declare both
// targets:
//
//	g.AddConditionalEdges("agent", toolnode.Dispatch(msgs, "tools", graph.End), "tools", graph.End)
//
// toolsNode is a New node; each task runs its one call and writes its
// tool message, and the runtime applies the tasks' writes in the order of
// the calls. Each task's writes are saved when it finishes, so a resume —
// after an interrupt in one call's tool, a failure, a crash or Ctrl-C —
// runs only the calls that had not finished, never a finished sibling
// again. A task's input holds only its call, not the history.
func Dispatch[S any](messages *state.Key[S, []chat.Message], toolsNode, otherwise string) graph.Router[S] {
	send := sender(messages, toolsNode)
	return func(_ context.Context, s S) (graph.Route[S], error) {
		sends, err := send(pending(messages.Get(s)))
		if err != nil || len(sends) > 0 {
			return graph.Route[S]{Sends: sends}, err
		}
		return graph.Route[S]{To: []string{otherwise}}, nil
	}
}

// callTask is one call to send, with its answer when it is not to run.
type callTask struct {
	messageID string
	call      llms.ToolCall
	answer    *string
}

// pending returns the calls of the last AI message of msgs that no later
// tool message answers, in order.
func pending(msgs []chat.Message) []callTask {
	at := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llms.ChatMessageTypeAI {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range msgs[at+1:] {
		if r, ok := m.ToolResponse(); ok {
			answered[r.ToolCallID] = true
		}
	}
	var out []callTask
	for _, c := range msgs[at].ToolCalls() {
		if !answered[c.ID] {
			out = append(out, callTask{messageID: msgs[at].ID, call: c})
		}
	}
	return out
}

// sender returns a function that makes the Sends of tasks to toolsNode:
// each input a zero S whose messages field holds only the task's message.
func sender[S any](messages *state.Key[S, []chat.Message], toolsNode string) func([]callTask) ([]graph.Send[S], error) {
	only := state.NewSchema[S](messages) // sets the field in a zero S
	return func(tasks []callTask) ([]graph.Send[S], error) {
		if len(tasks) == 0 {
			return nil, nil
		}
		ap := only.NewApplier()
		out := make([]graph.Send[S], 0, len(tasks))
		for _, t := range tasks {
			mark := json.RawMessage("true")
			if t.answer != nil {
				b, err := json.Marshal(*t.answer)
				if err != nil {
					return nil, fmt.Errorf("toolnode: send call %q: %w", t.call.ID, err)
				}
				mark = b
			}
			m := chat.Message{ID: t.messageID, Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{t.call},
				AdditionalKwargs: map[string]json.RawMessage{taskKey: mark}}
			var arg S
			if err := ap.Add("toolnode", []state.Write[S]{messages.Overwrite([]chat.Message{m})}); err != nil {
				return nil, fmt.Errorf("toolnode: send call %q: %w", t.call.ID, err)
			}
			if _, err := ap.Apply(&arg, true); err != nil {
				return nil, fmt.Errorf("toolnode: send call %q: %w", t.call.ID, err)
			}
			out = append(out, graph.SendTo(toolsNode, arg))
		}
		return out, nil
	}
}

// taskOf returns the call task a node's input holds, if it is one.
func taskOf(msgs []chat.Message) (callTask, bool) {
	if len(msgs) != 1 || msgs[0].Role != llms.ChatMessageTypeAI {
		return callTask{}, false
	}
	mark, ok := msgs[0].AdditionalKwargs[taskKey]
	calls := msgs[0].ToolCalls()
	if !ok || len(calls) != 1 {
		return callTask{}, false
	}
	t := callTask{messageID: msgs[0].ID, call: calls[0]}
	var answer string
	if json.Unmarshal(mark, &answer) == nil {
		t.answer = &answer
	}
	return t, true
}

// runTask runs the one call of a task (or takes its answer) and returns
// its tool message.
func (r *runner) runTask(ctx context.Context, t callTask) (chat.Message, error) {
	results, err := r.runCalls(ctx, []llms.ToolCall{t.call}, []*string{t.answer})
	if err != nil {
		return chat.Message{}, err
	}
	return toolMessage(t.call, results[0]), nil
}
