package agent_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// counting is a SQLite saver that counts the bytes it is asked to store:
// checkpoint blobs by channel, and pending writes.
type counting struct {
	*sqlite.Saver
	mu     sync.Mutex
	puts   int
	blobs  map[string]int
	writes int
}

func (c *counting) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	c.mu.Lock()
	c.puts++
	for ch, b := range req.Checkpoint.New {
		c.blobs[ch] += len(b.Data)
	}
	c.mu.Unlock()
	return c.Saver.Put(ctx, req)
}

func (c *counting) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	c.mu.Lock()
	for _, w := range ws {
		c.writes += len(w.Value)
	}
	c.mu.Unlock()
	return c.Saver.PutWrites(ctx, cfg, taskID, ws)
}

// snapshot returns the checkpoints, the messages channel's blob bytes,
// all blob bytes and the write bytes so far.
func (c *counting) snapshot() (puts, messages, blobs, writes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.blobs {
		blobs += n
	}
	return c.puts, c.blobs["messages"], blobs, c.writes
}

// turnModel calls the lookup tool for each question, then answers from
// its result in some 300 characters: four messages a turn.
type turnModel struct{}

func (turnModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	last := msgs[len(msgs)-1]
	if last.Role == llms.ChatMessageTypeHuman {
		id := fmt.Sprintf("call_%d", len(msgs))
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{chat.Call(id, "lookup", `{"input":"the facts for this question"}`)}}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: strings.Repeat("Here is the answer, from the lookup. ", 8)}}}, nil
}

func (m turnModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// BenchmarkCheckpointBytesOfALongChat runs a 50-turn chat on SQLite (each
// turn a question, a tool call, its answer and a reply of some 300
// characters) and reports what the saver was asked to store: the
// checkpoint bytes per step over the whole thread and in its 50th turn,
// the messages field's share, and the pending writes per step. "agent" is
// the prebuilt agent, its messages a chat.Messages field: a custom-reducer
// field, which the runtime stores whole at every step that changes it, so
// a step's bytes grow with the history. "append-field" stores the same
// messages in a state.Append field, which the runtime stores as deltas:
// what the messages field would cost if the runtime could store it so.
//
//	go test ./chat/agent -run '^$' -bench CheckpointBytes -benchtime 1x
func BenchmarkCheckpointBytesOfALongChat(b *testing.B) {
	const turns = 50
	lookup := fn{"lookup", func(context.Context, string) (string, error) {
		return "The facts: " + strings.Repeat("a fact, ", 10), nil
	}}
	question := func(turn int) chat.Message {
		return chat.Human(fmt.Sprintf("Question %d: what do the facts say?", turn))
	}
	b.Run("agent", func(b *testing.B) {
		measure(b, turns, func(saver checkpoint.Saver) (func(context.Context, int) (int, error), error) {
			a := agent.New[agent.NoResponse](turnModel{}, []tools.Tool{lookup}, agent.WithMaxModelCalls(4))
			app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
			return func(ctx context.Context, turn int) (int, error) {
				out, err := app.Invoke(ctx, a.Input(question(turn)), graph.WithThread("long"))
				return len(out.Messages), err
			}, err
		})
	})
	b.Run("append-field", func(b *testing.B) {
		measure(b, turns, func(saver checkpoint.Saver) (func(context.Context, int) (int, error), error) {
			type plain struct{ Messages []chat.Message }
			msgs := state.Append("messages", func(s *plain) *[]chat.Message { return &s.Messages })
			g := graph.New(state.NewSchema[plain](msgs))
			g.AddNode("agent", func(ctx context.Context, s plain) (state.Update[plain], error) {
				resp, err := turnModel{}.GenerateContent(ctx, chat.Contents(s.Messages))
				if err != nil {
					return state.Update[plain]{}, err
				}
				c := resp.Choices[0]
				return state.Writes(msgs.Set([]chat.Message{chat.AI(c.Content, c.ToolCalls...)})), nil
			})
			g.AddNode("tools", func(ctx context.Context, s plain) (state.Update[plain], error) {
				last, _ := chat.Last(s.Messages)
				c := last.ToolCalls()[0]
				out, err := lookup.Call(ctx, c.FunctionCall.Arguments)
				return state.Writes(msgs.Set([]chat.Message{chat.ToolResult(c.ID, "lookup", out)})), err
			})
			g.AddEdge(graph.Start, "agent").AddEdge("tools", "agent")
			g.AddConditionalEdges("agent", graph.Choose(func(_ context.Context, s plain) (string, error) {
				last, _ := chat.Last(s.Messages)
				if len(last.ToolCalls()) > 0 {
					return "tools", nil
				}
				return graph.End, nil
			}), "tools", graph.End)
			app, err := g.Compile(graph.WithCheckpointer(saver))
			return func(ctx context.Context, turn int) (int, error) {
				out, err := app.Invoke(ctx, state.Writes(msgs.Set([]chat.Message{question(turn)})), graph.WithThread("long"))
				return len(out.Messages), err
			}, err
		})
	})
}

// measure runs turns turns of the chat build makes on a counting SQLite
// saver and reports what it stored.
func measure(b *testing.B, turns int, build func(checkpoint.Saver) (func(context.Context, int) (int, error), error)) {
	for b.Loop() {
		lite, err := sqlite.Open(filepath.Join(b.TempDir(), "chat.db"))
		if err != nil {
			b.Fatal(err)
		}
		saver := &counting{Saver: lite, blobs: map[string]int{}}
		turn, err := build(saver)
		if err != nil {
			b.Fatal(err)
		}
		var lastPuts, lastMsgs, lastBlobs, lastWrites, n int
		for i := 1; i <= turns; i++ {
			if i == turns {
				lastPuts, lastMsgs, lastBlobs, lastWrites = saver.snapshot()
			}
			if n, err = turn(b.Context(), i); err != nil {
				b.Fatal(err)
			}
		}
		if n != 4*turns {
			b.Fatalf("%d messages after %d turns, want %d", n, turns, 4*turns)
		}
		puts, msgs, blobs, writes := saver.snapshot()
		b.ReportMetric(float64(blobs)/float64(puts), "blob-bytes/step")
		b.ReportMetric(float64(blobs-lastBlobs)/float64(puts-lastPuts), "turn50-blob-bytes/step")
		b.ReportMetric(float64(msgs-lastMsgs)/float64(blobs-lastBlobs), "turn50-messages-share")
		b.ReportMetric(float64(writes-lastWrites)/float64(puts-lastPuts), "turn50-write-bytes/step")
		b.ReportMetric(float64(blobs), "thread-blob-bytes")
		b.ReportMetric(float64(puts), "checkpoints")
		if err := lite.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
