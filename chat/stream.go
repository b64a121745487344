package chat

import (
	"context"

	"github.com/stategraph/stategraph/graph"
)

// Chunk is a token chunk of the message MessageID as a model streams it,
// sent to the graph's Custom stream by StreamingFunc. The event that
// carries it names the node and the step.
type Chunk struct {
	MessageID string `json:"message_id"`
	Text      string `json:"text"`
}

// StreamingFunc returns a function for langchaingo's llms.WithStreamingFunc
// that sends each chunk of the message with id messageID to the graph's
// streams: the bytes to the Messages stream (graph.StreamingFuncFor:
// tagged with node, step, task and the message id) and a Chunk to the
// Custom stream (for consumers that stream only Custom). Each does nothing
// when nobody streams its mode.
func StreamingFunc(ctx context.Context, messageID string) func(ctx context.Context, chunk []byte) error {
	tokens := graph.StreamingFuncFor(ctx, messageID)
	return func(cctx context.Context, chunk []byte) error {
		graph.Emit(ctx, Chunk{MessageID: messageID, Text: string(chunk)})
		return tokens(cctx, chunk)
	}
}
