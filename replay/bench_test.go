package replay_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

// countingSaver counts the PutWrites calls of the saver it wraps.
type countingSaver struct {
	checkpoint.Saver
	writes atomic.Int64
}

func (s *countingSaver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	s.writes.Add(1)
	return s.Saver.PutWrites(ctx, cfg, taskID, ws)
}

// constModel answers every call at once with the same text.
type constModel struct{}

func (constModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok"}}}, nil
}

func (m constModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

type counter struct{ N int }

var nField = state.Sum("n", func(s *counter) *int { return &s.N })

// BenchmarkRecording is W2 (a chain of 100 nodes on the memory saver, a
// checkpoint a step) whose nodes each make one model call: "off" calls
// the model, "on" calls it through replay.Model, which records it. It
// reports the cost per step and the saver writes each recorded call adds.
func BenchmarkRecording(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			var model llms.Model = constModel{}
			if mode == "on" {
				model = replay.Model(model)
			}
			msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}
			node := func(ctx context.Context, s counter) (state.Update[counter], error) {
				if _, err := model.GenerateContent(ctx, msgs); err != nil {
					return state.Update[counter]{}, err
				}
				return state.Writes(nField.Set(1)), nil
			}
			g := graph.New(state.NewSchema(nField))
			prev := graph.Start
			for i := range 100 {
				name := fmt.Sprint("n", i)
				g.AddNode(name, node).AddEdge(prev, name)
				prev = name
			}
			saver := &countingSaver{Saver: memory.New()}
			c, err := g.Compile(graph.WithCheckpointer(saver))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				out, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread(fmt.Sprint("t", i)), graph.WithRecursionLimit(200))
				if err != nil || out.N != 100 {
					b.Fatalf("n = %d, err = %v", out.N, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/step")
			b.ReportMetric(float64(saver.writes.Load())/float64(b.N*100), "writes/call")
		})
	}
}
