package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Doc is the state of the test graphs: a topic, the drafts a writer
// appends, the number of revisions and whether a reviewer approved.
type Doc struct {
	Topic     string
	Drafts    []string
	Revisions int
	Approved  bool
}

var (
	topicF     = state.Value("topic", func(d *Doc) *string { return &d.Topic })
	draftsF    = state.Append("drafts", func(d *Doc) *[]string { return &d.Drafts })
	revisionsF = state.Sum("revisions", func(d *Doc) *int { return &d.Revisions })
	approvedF  = state.Value("approved", func(d *Doc) *bool { return &d.Approved })
	docSchema  = state.NewSchema(topicF, draftsF, revisionsF, approvedF)
)

// The threads populate writes, and the status each ends in.
const (
	threadDone        = "done-1"   // ran to the end
	threadPaused      = "paused-1" // stopped by WithInterruptBefore("review")
	threadInterrupted = "asking-1" // a node called graph.Interrupt
	threadFailed      = "failed-1" // review returned an error
	threadNested      = "nested-1" // outline, then the subgraph drafting
	reviewError       = "reviewer unavailable"
	// subgraphNode is the node of threadNested that runs docGraph as a
	// subgraph: its checkpoints live in the namespace "drafting:<task id>".
	subgraphNode = "drafting"
)

// docGraph writes two drafts, then reviews. review is the reviewer node.
func docGraph(review graph.NodeFunc[Doc]) *graph.StateGraph[Doc] {
	write := func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		draft := fmt.Sprintf("%s, draft %d", d.Topic, d.Revisions+1)
		return state.Writes(draftsF.Set([]string{draft}), revisionsF.Set(1)), nil
	}
	enough := func(ctx context.Context, d Doc) (string, error) {
		if d.Revisions < 2 {
			return "write", nil
		}
		return "review", nil
	}
	return graph.New(docSchema).
		AddNode("write", write).
		AddNode("review", review).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", "review").
		AddEdge("review", graph.End)
}

// nestedGraph outlines the document, then runs docGraph (two drafts and
// an approving review) as the subgraph drafting, which checkpoints in its
// own namespace of the thread.
func nestedGraph(t testing.TB) *graph.StateGraph[Doc] {
	t.Helper()
	drafting, err := docGraph(approve).Compile()
	require.NoError(t, err)
	outline := func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		return state.Writes(draftsF.Set([]string{d.Topic + ", outline"})), nil
	}
	return graph.New(docSchema).
		AddNode("outline", outline).
		AddSubgraph(subgraphNode, drafting).
		AddEdge(graph.Start, "outline").
		AddEdge("outline", subgraphNode).
		AddEdge(subgraphNode, graph.End)
}

func approve(ctx context.Context, d Doc) (state.Update[Doc], error) {
	return state.Writes(approvedF.Set(true)), nil
}

// populate runs the five test threads on saver with the real runtime.
func populate(t testing.TB, saver checkpoint.Saver) {
	t.Helper()
	// A deadline turns a hung run into a failure that says so.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	input := func(topic string) state.Update[Doc] { return state.Writes(topicF.Set(topic)) }

	app, err := docGraph(approve).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, input("Go"), graph.WithThread(threadDone))
	require.NoError(t, err)

	paused, err := docGraph(approve).Compile(graph.WithCheckpointer(saver), graph.WithInterruptBefore("review"))
	require.NoError(t, err)
	_, err = paused.Invoke(ctx, input("Rust"), graph.WithThread(threadPaused))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	asking, err := docGraph(func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		ok, err := graph.Interrupt[bool](ctx, map[string]any{"question": "publish?", "drafts": len(d.Drafts)})
		if err != nil {
			return state.Update[Doc]{}, err
		}
		return state.Writes(approvedF.Set(ok)), nil
	}).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = asking.Invoke(ctx, input("Zig"), graph.WithThread(threadInterrupted))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	failing, err := docGraph(func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		return state.Update[Doc]{}, errors.New(reviewError)
	}).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = failing.Invoke(ctx, input("C"), graph.WithThread(threadFailed))
	require.ErrorContains(t, err, reviewError)

	nested, err := nestedGraph(t).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = nested.Invoke(ctx, input("Py"), graph.WithThread(threadNested))
	require.NoError(t, err)
}

// newDB returns the path of a new SQLite checkpoint database named name,
// filled by each fill in turn.
func newDB(t *testing.T, name string, fill ...func(testing.TB, checkpoint.Saver)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	for _, f := range fill {
		f(t, saver)
	}
	require.NoError(t, saver.Close())
	return path
}

// sqliteDB returns the path of a new SQLite database holding the test
// threads.
func sqliteDB(t *testing.T) string { return newDB(t, "checkpoints.db", populate) }

// emptyDB returns the path of a new SQLite checkpoint database without
// threads.
func emptyDB(t *testing.T) string { return newDB(t, "empty.db") }
