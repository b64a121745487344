package chat_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/sqlitetest"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/old_role_parts.sql is the dump of a SQLite thread ("old-format") that the
// code before LangChain's message JSON wrote, in the {id, role, parts}
// form: the graph of TestMessagesSurviveEverySaver, run once. It must
// read back as it ran, in State and in every checkpoint of History, and
// the thread must go on: a new turn appends in the new form.
func TestThreadStoredInTheOldFormKeepsReading(t *testing.T) {
	t.Parallel()
	path := sqlitetest.FromDump(t, filepath.Join("testdata", "old_role_parts.sql"), "old.db")
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })

	// The graph that wrote it (say, then edit: History reads their
	// schedules), and a reply node the next turn goes to.
	g := graph.New(state.NewSchema[convo](convoMessages))
	noop := func(ctx context.Context, s convo) (state.Update[convo], error) { return state.Update[convo]{}, nil }
	g.AddNode("say", noop).AddNode("edit", noop)
	g.AddNode("reply", func(ctx context.Context, s convo) (state.Update[convo], error) {
		return state.Writes(convoMessages.Set([]chat.Message{chat.AI("still here")})), nil
	})
	g.AddConditionalEdges(graph.Start, graph.Choose(func(ctx context.Context, s convo) (string, error) { return "reply", nil }), "say", "reply")
	g.AddEdge("say", "edit").AddEdge("edit", graph.End).AddEdge("reply", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	ctx := context.Background()
	cfg := graph.WithThread("old-format")

	// What the old code's run ended with: every() and its edit, the ids
	// the reducer derived then (DeriveID still derives them).
	want := every()
	want = append([]chat.Message{chat.Human("start").WithID("msg-5008dc36ac50eb17")}, want[1:]...)
	want[5] = chat.AI("a fat cat").WithID("a2")
	want = append(want, chat.Human("no id").WithID("msg-b0be5c53ea4f57c9"), chat.AI("no id either").WithID("msg-c6cc0c5560c5e35e"))

	snap, err := app.State(ctx, cfg)
	require.NoError(t, err)
	assert.Equal(t, want, snap.Values.Messages)
	var lens []int
	for s, err := range app.History(ctx, cfg) {
		require.NoError(t, err)
		lens = append(lens, len(s.Values.Messages))
	}
	assert.Equal(t, []int{8, 8, 1, 0}, lens)

	got, err := app.Invoke(ctx, state.Writes(convoMessages.Set([]chat.Message{chat.Human("are you there?")})), cfg)
	require.NoError(t, err)
	require.Len(t, got.Messages, 10)
	assert.Equal(t, want, got.Messages[:8])
	assert.Equal(t, "still here", got.Messages[9].Text())
	snap, err = app.State(ctx, cfg)
	require.NoError(t, err)
	assert.Equal(t, got.Messages, snap.Values.Messages)
}
