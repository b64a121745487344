package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
)

// tally counts what a saver is asked to store (blob and write bytes,
// checkpoints); countingPG is counting's PostgreSQL twin (each embeds its
// concrete saver, so the optional interfaces stay visible).
type tally struct {
	mu                  sync.Mutex
	puts, blobs, writes int
}

func (t *tally) put(req checkpoint.PutRequest) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.puts++
	for _, b := range req.Checkpoint.New {
		t.blobs += len(b.Data)
	}
}

func (t *tally) wrote(ws []checkpoint.PendingWrite) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range ws {
		t.writes += len(w.Value)
	}
}

func (t *tally) now() (puts, bytes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.puts, t.blobs + t.writes
}

type tallyLite struct {
	*sqlite.Saver
	tally
}

func (c *tallyLite) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	c.put(req)
	return c.Saver.Put(ctx, req)
}

func (c *tallyLite) PutWrites(ctx context.Context, cfg checkpoint.Config, id string, ws []checkpoint.PendingWrite) error {
	c.wrote(ws)
	return c.Saver.PutWrites(ctx, cfg, id, ws)
}

type tallyPG struct {
	*postgres.Saver
	tally
}

func (c *tallyPG) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	c.put(req)
	return c.Saver.Put(ctx, req)
}

func (c *tallyPG) PutWrites(ctx context.Context, cfg checkpoint.Config, id string, ws []checkpoint.PendingWrite) error {
	c.wrote(ws)
	return c.Saver.PutWrites(ctx, cfg, id, ws)
}

type counter interface {
	checkpoint.Saver
	now() (puts, bytes int)
}

type talk struct{ Messages []chat.Message }

// chatGraph is a chat loop (agent → tools → agent) over a messages field:
// chat.Messages (stored as deltas) or, as the runtime stored it before,
// a custom-reducer field (state.Reduce with chat.Add: whole every step).
func chatGraph(b *testing.B, saver checkpoint.Saver, whole bool) (*graph.Compiled[talk], *state.Key[talk, []chat.Message]) {
	get := func(s *talk) *[]chat.Message { return &s.Messages }
	msgs := chat.Messages("messages", get)
	if whole {
		msgs = state.Reduce("messages", get, chat.Add)
	}
	g := graph.New(state.NewSchema[talk](msgs))
	g.AddNode("agent", func(ctx context.Context, s talk) (state.Update[talk], error) {
		resp, err := turnModel{}.GenerateContent(ctx, chat.Contents(s.Messages))
		if err != nil {
			return state.Update[talk]{}, err
		}
		c := resp.Choices[0]
		return state.Writes(msgs.Set([]chat.Message{chat.AI(c.Content, c.ToolCalls...)})), nil
	})
	g.AddNode("tools", func(ctx context.Context, s talk) (state.Update[talk], error) {
		last, _ := chat.Last(s.Messages)
		c := last.ToolCalls()[0]
		return state.Writes(msgs.Set([]chat.Message{chat.ToolResult(c.ID, "lookup", "The facts: "+strings.Repeat("a fact, ", 10))})), nil
	})
	g.AddEdge(graph.Start, "agent").AddEdge("tools", "agent")
	g.AddConditionalEdges("agent", graph.Choose(func(_ context.Context, s talk) (string, error) {
		if last, _ := chat.Last(s.Messages); len(last.ToolCalls()) > 0 {
			return "tools", nil
		}
		return graph.End, nil
	}), "tools", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		b.Fatal(err)
	}
	return app, msgs
}

func encodedBytes(b *testing.B, msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		data, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		n += len(data)
	}
	return n
}

// BenchmarkChatStorage runs chats of 50 and 1,000 turns (each turn a
// question, a tool call, its answer and a reply of some 300 characters:
// five checkpoints) on SQLite and PostgreSQL and reports, with the
// messages field stored as deltas (chat.Messages):
//
//   - last-turn-overhead-bytes/step: what a step of the last turn stored
//     beyond its new messages' own encoded bytes (blobs and writes);
//   - thread/messages-ratio: the thread's stored bytes over the sum of its
//     messages' encoded bytes;
//   - thread-bytes, latest-state-ns (State of the thread, a fresh graph:
//     no cache) and history-ns (all of History).
//
// whole-50 is the 50-turn chat with the field stored whole at every step
// (how the runtime stored a messages field before), for comparison.
//
//	STATEGRAPH_POSTGRES_DSN=… go test ./chat/agent -run '^$' -bench ChatStorage -benchtime 1x
func BenchmarkChatStorage(b *testing.B) {
	savers := map[string]func(b *testing.B) counter{
		"sqlite": func(b *testing.B) counter {
			lite, err := sqlite.Open(filepath.Join(b.TempDir(), "chat.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = lite.Close() })
			return &tallyLite{Saver: lite}
		},
	}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		savers["postgres"] = func(b *testing.B) counter {
			pg := postgres.New(pgtest.Pool(b, nil), postgres.WithSchema(pgtest.Schema(b)))
			if err := pg.Migrate(context.Background()); err != nil {
				b.Fatal(err)
			}
			return &tallyPG{Saver: pg}
		}
	}
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := savers[name]
		if !ok {
			continue
		}
		for _, run := range []struct {
			label string
			turns int
			whole bool
		}{{"50", 50, false}, {"1000", 1000, false}, {"whole-50", 50, true}} {
			b.Run(fmt.Sprintf("%s/%s", name, run.label), func(b *testing.B) {
				for b.Loop() {
					chatStorage(b, open(b), run.turns, run.whole)
				}
			})
		}
	}
}

func chatStorage(b *testing.B, saver counter, turns int, whole bool) {
	ctx := b.Context()
	app, msgs := chatGraph(b, saver, whole)
	thread := graph.WithThread("long")
	var puts0, bytes0, before int
	var out talk
	for i := 1; i <= turns; i++ {
		if i == turns {
			puts0, bytes0 = saver.now()
			before = len(out.Messages)
		}
		var err error
		out, err = app.Invoke(ctx, state.Writes(msgs.Set([]chat.Message{question(i)})), thread)
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(out.Messages) != 4*turns {
		b.Fatalf("%d messages after %d turns, want %d", len(out.Messages), turns, 4*turns)
	}
	puts, total := saver.now()
	newBytes := encodedBytes(b, out.Messages[before:])
	all := encodedBytes(b, out.Messages)
	b.ReportMetric(float64(total-bytes0-newBytes)/float64(puts-puts0), "last-turn-overhead-bytes/step")
	b.ReportMetric(float64(total)/float64(all), "thread/messages-ratio")
	b.ReportMetric(float64(total), "thread-bytes")

	// The median of 7 reads, each by a fresh graph (no state cache).
	var times []time.Duration
	for range 7 {
		fresh, _ := chatGraph(b, saver, whole)
		start := time.Now()
		snap, err := fresh.State(ctx, thread)
		times = append(times, time.Since(start))
		if err != nil || len(snap.Values.Messages) != 4*turns {
			b.Fatalf("latest state: %d messages, %v", len(snap.Values.Messages), err)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[3].Nanoseconds()), "latest-state-ns")
	fresh, _ := chatGraph(b, saver, whole)
	start := time.Now()
	n := 0
	for s, err := range fresh.History(ctx, thread) {
		if err != nil {
			b.Fatal(err)
		}
		_ = s
		n++
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds()), "history-ns")
	if n != puts {
		b.Fatalf("history has %d checkpoints, the saver stored %d", n, puts)
	}
}

func question(turn int) chat.Message {
	return chat.Human(fmt.Sprintf("Question %d: what do the facts say?", turn))
}
