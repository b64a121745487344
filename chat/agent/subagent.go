package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/graph"
	"github.com/tmc/langchaingo/llms"
)

// SubAgent is an agent offered to another agent as a tool (a supervisor
// calling sub-agents, LangChain's recommended multi-agent shape): the
// model calls it with a task in words, the sub-agent runs on that task as
// a conversation of its own, and its answer — its last AI message's text,
// or its structured answer as JSON — is the tool's result. Make one with
// Agent.AsTool.
//
// The sub-agent's run is a graph invoked from the tool call's task (see
// package graph's nested calls): it uses the caller's checkpointer and
// thread in a namespace of its own ("tools:" and the task's id), so its
// messages are kept apart from the supervisor's, which sees only the
// answer. A resume does not run a finished sub-agent again, and a
// sub-agent that interrupts (its own HumanReview) interrupts the
// supervisor's tools node, resumed with the answers as usual.
type SubAgent[T any] struct {
	name, desc string
	agent      *Agent[T]
	app        *graph.Compiled[State[T]]
}

// AsTool returns the agent as a tool named name for another agent. It
// compiles the agent's graph without a checkpointer, so that it runs in
// its caller's; it panics if the graph does not compile, as a graph built
// by New always does.
func (a *Agent[T]) AsTool(name, description string) *SubAgent[T] {
	app, err := a.Graph.Compile(graph.WithName(name))
	if err != nil {
		panic(fmt.Sprintf("agent: AsTool %q: %v", name, err))
	}
	return &SubAgent[T]{name: name, desc: description, agent: a, app: app}
}

// Name is the tool's name.
func (s *SubAgent[T]) Name() string { return s.name }

// Description is the tool's description.
func (s *SubAgent[T]) Description() string { return s.desc }

// InputSchema asks for the task in words.
func (s *SubAgent[T]) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task":{"type":"string","description":"the task, with everything the agent needs to know"}},"required":["task"]}`)
}

// Call runs the sub-agent on the task and returns its answer.
func (s *SubAgent[T]) Call(ctx context.Context, input string) (string, error) {
	var in struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal([]byte(input), &in); err != nil || in.Task == "" {
		return "", fmt.Errorf("agent: sub-agent %q: the call's arguments must be {\"task\": \"…\"}, got %q", s.name, input)
	}
	out, err := s.app.Invoke(ctx, s.agent.Input(chat.Human(in.Task)))
	if err != nil {
		return "", fmt.Errorf("agent: sub-agent %q: %w", s.name, err)
	}
	if !isNoResponse[T]() {
		b, err := json.Marshal(out.Response)
		if err != nil {
			return "", fmt.Errorf("agent: sub-agent %q: encode its answer: %w", s.name, err)
		}
		return string(b), nil
	}
	for i := len(out.Messages) - 1; i >= 0; i-- {
		if m := out.Messages[i]; m.Role == llms.ChatMessageTypeAI {
			return m.Text(), nil
		}
	}
	return "", fmt.Errorf("agent: sub-agent %q gave no answer", s.name)
}
