package nodes

import (
	"context"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/graph"
	"github.com/tmc/langchaingo/llms"
)

// WithTokenStreaming makes the agent's model calls — the LLMPlanner's, the
// model PartialReplan's, the LLMResponder's and a ReAct step's, whatever
// model they use — stream their tokens to graph.Stream's Messages mode
// (graph.StreamingFunc): each event carries the node and task it came
// from, and before each attempt of a call the node emits a ModelCall on
// the Custom stream naming the node, the plan step (for a ReAct step) and
// the attempt, so a consumer knows which call the chunks that follow
// belong to (a retried attempt streams from the start again). Without it
// the calls do not stream (some servers and fakes do not speak the
// streaming protocol).
func WithTokenStreaming() AgentOption { return func(o *agentOptions) { o.stream = true } }

// ModelCall is the Custom event a node emits, with WithTokenStreaming,
// before each attempt of a model call: the Messages chunks of the task
// that follow are that attempt's. Its MessageID is the Event.MessageID of
// those Messages events (graph.StreamingFunc), one per attempt, so a
// consumer tells the call and plan step each chunk belongs to even when
// steps stream at the same time — also the steps of an eager round, which
// share one task. TaskID is the task's (graph.RunInfo).
type ModelCall struct {
	Node      string `json:"node"`
	StepID    string `json:"step_id,omitempty"` // the plan step of a ReAct step
	TaskID    string `json:"task_id,omitempty"` // the task whose Messages events carry the chunks
	MessageID string `json:"message_id"`        // the MessageID of the attempt's Messages events
	Attempt   int    `json:"attempt"`           // 1 for the first; a retry streams again from the start
}

// streamTag is what a node streaming its model calls tags them with.
type streamTag struct {
	node, step string
}

type streamKey struct{}

// streaming makes the model calls made with ctx stream their tokens, when
// on, tagged with node and plan step.
func streaming(ctx context.Context, on bool, node, step string) context.Context {
	if !on {
		return ctx
	}
	return context.WithValue(ctx, streamKey{}, streamTag{node: node, step: step})
}

// streamOptions returns opts with llms.WithStreamingFunc sending the
// tokens to the run's Messages stream, and emits the ModelCall of attempt,
// when ctx streams (streaming) and the run streams Messages; opts as they
// are otherwise, so the model is not asked for a stream nobody reads.
func streamOptions(ctx context.Context, attempt int, opts []llms.CallOption) []llms.CallOption {
	tag, ok := ctx.Value(streamKey{}).(streamTag)
	if !ok {
		return opts
	}
	info, _ := graph.RunInfo(ctx)
	id := uuid.NewString()
	graph.Emit(ctx, ModelCall{Node: tag.node, StepID: tag.step, TaskID: info.TaskID, MessageID: id, Attempt: attempt})
	if !graph.Streams(ctx, graph.Messages) {
		return opts // nobody reads the tokens (Invoke): a plain request
	}
	send := graph.StreamingFunc(ctx, id)
	return append(append([]llms.CallOption(nil), opts...), llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
		if len(chunk) == 0 {
			return nil // the clients' end-of-stream call
		}
		return send(ctx, chunk)
	}))
}
