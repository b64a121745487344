package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// The threads of stoppedDB: plan sends three topics to execute, one task
// each; the Go task finishes and the two others are stopped mid-step.
const (
	// threadStopped was stopped by Ctrl-C: the run's context was
	// cancelled while two execute tasks waited on it. The runtime records
	// nothing for them: they are pending.
	threadStopped = "stopped-1"
	// threadStoppedOld holds what older versions of the runtime recorded
	// for such tasks: a task error ending in "context canceled".
	threadStoppedOld = "stopped-old-1"
)

// sentTopics are the inputs plan sends to execute, in Send order; the
// first one's task finishes.
var sentTopics = []string{"Go", "Rust", "Zig"}

// fanGraph plans, then sends each of sentTopics to execute. execute
// drafts the first topic at once and calls stop for the others.
func fanGraph(stop func(ctx context.Context) error) *graph.StateGraph[Doc] {
	plan := func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		return state.Writes(revisionsF.Set(1)), nil
	}
	execute := func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		if d.Topic == sentTopics[0] {
			return state.Writes(draftsF.Set([]string{d.Topic + ", executed"})), nil
		}
		if err := stop(ctx); err != nil {
			return state.Update[Doc]{}, fmt.Errorf("call the service: %w", err)
		}
		return state.Update[Doc]{}, nil
	}
	return graph.New(docSchema).
		AddNode("plan", plan).
		AddNode("execute", execute).
		AddEdge(graph.Start, "plan").
		AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, d Doc) ([]graph.Send[Doc], error) {
			sends := make([]graph.Send[Doc], len(sentTopics))
			for i, t := range sentTopics {
				sends[i] = graph.SendTo("execute", Doc{Topic: t})
			}
			return sends, nil
		}), "execute").
		AddEdge("execute", graph.End)
}

// stopMidStep streams app on thread and calls stop once the first
// execute task has finished and its writes are saved. It returns the
// run's error.
func stopMidStep(ctx context.Context, app *graph.Compiled[Doc], thread string, stop func()) error {
	for ev, err := range app.Stream(ctx, state.Writes(topicF.Set("plan")), graph.WithThread(thread), graph.StreamModes(graph.Tasks)) {
		if err != nil {
			return err
		}
		if ev.Node == "execute" && ev.Task.Result && ev.Task.Err == nil {
			stop()
		}
	}
	return nil
}

// populateStopped writes threadStopped and threadStoppedOld to saver
// with the real runtime.
func populateStopped(t testing.TB, saver checkpoint.Saver) {
	t.Helper()
	// A deadline turns a hung run into a failure that says so.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Ctrl-C: the two tasks wait for the run's cancellation.
	app, err := fanGraph(func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	runCtx, ctrlC := context.WithCancel(ctx)
	defer ctrlC()
	err = stopMidStep(runCtx, app, threadStopped, ctrlC)
	require.ErrorIs(t, err, context.Canceled)

	// An older runtime: the tasks' "context canceled" errors are recorded.
	// The run is not cancelled here, so today's runtime records them too.
	release := make(chan struct{})
	old, err := fanGraph(func(ctx context.Context) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return context.Canceled
	}).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	err = stopMidStep(ctx, old, threadStoppedOld, func() { close(release) })
	require.ErrorIs(t, err, context.Canceled)
}

// stoppedDB returns the path of a new SQLite database holding
// threadStopped and threadStoppedOld.
func stoppedDB(t *testing.T) string { return newDB(t, "stopped.db", populateStopped) }

// everyThreadDB returns the path of a new SQLite database holding the
// test threads of populate and of populateStopped.
func everyThreadDB(t *testing.T) string {
	return newDB(t, "every.db", populate, populateStopped)
}
