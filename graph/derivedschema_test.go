package graph_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Party has a field of each kind a struct tag declares.
type Party struct {
	Topic    string
	Jokes    []string       `state:"append"`
	Votes    map[string]int `state:"merge"`
	Laughs   int            `state:"sum"`
	Messages []chat.Message `state:"messages"`
}

// partyByHand is Party's schema declared field by field.
var partyByHand = state.NewSchema(
	state.Value("topic", func(p *Party) *string { return &p.Topic }),
	state.Append("jokes", func(p *Party) *[]string { return &p.Jokes }),
	state.Merge("votes", func(p *Party) *map[string]int { return &p.Votes }),
	state.Sum("laughs", func(p *Party) *int { return &p.Laughs }),
	chat.Messages("messages", func(p *Party) *[]chat.Message { return &p.Messages }),
)

// storeLog records what a run stores: each checkpoint's new blobs and
// each task's writes, without ids.
type storeLog struct {
	checkpoint.Saver
	mu     sync.Mutex
	log    []string
	writes []string // of the step running, in no order until sorted
}

func (r *storeLog) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	var lines []string
	for ch, b := range req.Checkpoint.New {
		lines = append(lines, fmt.Sprintf("  %s delta=%v %s", ch, b.Delta, b.Data))
	}
	sort.Strings(lines)
	r.mu.Lock()
	sort.Strings(r.writes)
	r.log, r.writes = append(r.log, r.writes...), nil
	r.log = append(r.log, fmt.Sprintf("put %s %d %v", req.Metadata.Source, req.Metadata.Step, req.Metadata.Nodes))
	r.log = append(r.log, lines...)
	r.mu.Unlock()
	return r.Saver.Put(ctx, req)
}

func (r *storeLog) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	var lines []string
	for _, w := range ws {
		lines = append(lines, fmt.Sprintf("  write %d %s %s", w.Index, w.Channel, w.Value))
	}
	r.mu.Lock()
	r.writes = append(r.writes, lines...)
	r.mu.Unlock()
	return r.Saver.PutWrites(ctx, cfg, taskID, ws)
}

// runParty runs the same two turns on a schema and returns what was
// stored and the thread's history.
func runParty(t *testing.T, sc *state.Schema[Party]) ([]string, []*graph.Snapshot[Party]) {
	t.Helper()
	ctx := context.Background()
	saver, err := sqlite.Open(t.TempDir() + "/party.db")
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	rec := &storeLog{Saver: saver}
	g := graph.New(sc).
		AddNode("plan", func(ctx context.Context, p Party) (state.Update[Party], error) {
			return sc.Edit(p, func(p *Party) { p.Messages = append(p.Messages, chat.Human("jokes about "+p.Topic)) }), nil
		}).
		AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, p Party) ([]graph.Send[Party], error) {
			var sends []graph.Send[Party]
			for _, angle := range []string{"pun", "story", "one-liner"} {
				sends = append(sends, graph.SendArg[Party]("joke", angle+" on "+p.Topic))
			}
			return sends, nil
		}), "joke")
	graph.AddArgNode(g, "joke", func(ctx context.Context, j string) (state.Update[Party], error) {
		return sc.Edit(Party{}, func(p *Party) {
			p.Jokes = append(p.Jokes, j)
			p.Votes = map[string]int{j: len(j)}
			p.Laughs = len(j) % 3
		}), nil
	})
	g.AddNode("best", func(ctx context.Context, p Party) (state.Update[Party], error) {
		return sc.Edit(p, func(p *Party) {
			best := slices.MaxFunc(p.Jokes, func(a, b string) int { return p.Votes[a] - p.Votes[b] })
			if p.Topic == "cats" {
				p.Messages[0].Parts = chat.Human("(answered) " + p.Messages[0].Text()).Parts // a rewrite: stored whole
			}
			p.Messages = append(p.Messages, chat.AI(best))
		}), nil
	}).
		AddEdge(graph.Start, "plan").AddEdge("joke", "best")
	app, err := g.Compile(graph.WithCheckpointer(rec))
	require.NoError(t, err)
	for _, topic := range []string{"cats", "go"} {
		_, err := app.Invoke(ctx, sc.Edit(Party{}, func(p *Party) { p.Topic = topic }), graph.WithThread("t"))
		require.NoError(t, err)
	}
	var hist []*graph.Snapshot[Party]
	for snap, err := range app.History(ctx, graph.WithThread("t")) {
		require.NoError(t, err)
		hist = append(hist, snap)
	}
	return rec.log, hist
}

// A graph over the schema derived from Party's tags stores and reads back
// exactly what the same graph over the hand-written schema does: the same
// blobs (deltas for the append and messages fields, a snapshot when a
// message was rewritten), the same writes, the same History.
func TestDerivedSchemaStoresWhatTheHandWrittenOneStores(t *testing.T) {
	t.Parallel()
	derived := state.FromStruct[Party]()
	require.NoError(t, derived.Err())
	logHand, histHand := runParty(t, partyByHand)
	logTags, histTags := runParty(t, derived)
	require.Equal(t, logHand, logTags)
	require.Contains(t, logHand, `  jokes delta=true ["pun on go","story on go","one-liner on go"]`, "the append field is stored as deltas")
	require.Contains(t, logHand, `  messages delta=true [{"type":"ai","content":"one-liner on cats","id":"msg-19fd2085271620fc"}]`, "the messages field is stored as deltas")
	require.Len(t, histTags, len(histHand))
	for i := range histHand {
		require.Equal(t, histHand[i].Values, histTags[i].Values, "checkpoint %d", i)
		require.Equal(t, histHand[i].Next, histTags[i].Next, "checkpoint %d", i)
		require.Equal(t, histHand[i].Metadata.Step, histTags[i].Metadata.Step, "checkpoint %d", i)
	}
	require.Equal(t, "go", histTags[0].Values.Topic)
	require.Len(t, histTags[0].Values.Messages, 4)
	require.Equal(t, "(answered) jokes about cats", histTags[0].Values.Messages[0].Text())
}

// A bad tag fails Compile, naming the field and its tag.
func TestCompileNamesAFieldWithABadTag(t *testing.T) {
	t.Parallel()
	type Bad struct {
		Jokes []string `state:"apend"`
	}
	_, err := graph.New(state.FromStruct[Bad]()).
		AddNode("a", func(ctx context.Context, b Bad) (state.Update[Bad], error) { return state.Update[Bad]{}, nil }).
		AddEdge(graph.Start, "a").Compile()
	require.ErrorContains(t, err, "field Jokes of")
	require.ErrorContains(t, err, "(tag `state:\"apend\"`): unknown word \"apend\"")
}
