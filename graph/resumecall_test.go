package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// interruptingEssay is a graph whose "approve" node asks a yes/no question.
func interruptingEssay(t *testing.T) *graph.Compiled[Essay] {
	t.Helper()
	g := graph.New(essay).
		AddNode("write", write).
		AddNode("approve", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			ok, err := graph.Interrupt[bool](ctx, "publish?")
			return state.Writes(approved.Set(ok)), err
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "approve")
	app, err := g.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return app
}

func TestCompiledResumeAnswersThePendingInterrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, answer := range []bool{true, false} {
		app := interruptingEssay(t)
		_, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t"))
		var ie *graph.InterruptError
		require.True(t, errors.As(err, &ie), "first run stops at the interrupt: %v", err)

		out, err := app.Resume(ctx, answer, graph.WithThread("t"))
		require.NoError(t, err)
		require.Equal(t, answer, out.Approved)
		require.Equal(t, []string{"Go, draft 1"}, out.Drafts, "write ran once")
	}
}

func TestCompiledResumeStreamEndsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := interruptingEssay(t)
	_, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t"))
	require.Error(t, err)

	var last Essay
	n := 0
	for ev, err := range app.ResumeStream(ctx, true, graph.WithThread("t")) {
		require.NoError(t, err)
		last, n = ev.State, n+1
	}
	require.Positive(t, n)
	require.True(t, last.Approved)
}

// A nil answer resumes without one: the interrupt asks again.
func TestCompiledResumeWithoutAnAnswerAsksAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := interruptingEssay(t)
	_, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t"))
	require.Error(t, err)
	_, err = app.Resume(ctx, nil, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.True(t, errors.As(err, &ie), "no answer: asked again, got %v", err)
}
