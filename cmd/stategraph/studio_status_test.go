package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// The studio records the status of a thread another program wrote from
// its state, when it first lists the thread and whenever its head moves
// after, so that a thread search reads no thread's state: idle, an
// interrupt or a breakpoint (interrupted), a failure (error), for threads
// written before the start and while the studio runs.
func TestStudioThreadStatusesOfAnotherProgramsThreads(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	base := startStudio(t, studioConfig{serveConfig: serveConfig{db: db, store: filepath.Join(t.TempDir(), "records.db")}})
	check := func(when string, want map[string]string) {
		t.Helper()
		found := postJSON[[]map[string]any](t, base+"/threads/search", `{"limit": 100, "select": ["thread_id", "status"]}`, 200)
		got := map[string]string{}
		for _, th := range found {
			got[th["thread_id"].(string)], _ = th["status"].(string)
		}
		assert.Equal(t, want, got, when)
		for id, status := range want {
			assert.Equal(t, status, apiGet[map[string]any](t, base+"/threads/"+id, 200)["status"], "%s: thread %s by id", when, id)
		}
	}
	want := map[string]string{
		threadDone:        "idle",
		threadPaused:      "interrupted",
		threadInterrupted: "interrupted",
		threadFailed:      "error",
		threadNested:      "idle",
	}
	check("written before the start", want)

	// Another program answers the interrupt, stops the finished thread at
	// a breakpoint, and writes a new thread that fails.
	other, err := sqlite.Open(db)
	require.NoError(t, err)
	ctx := context.Background()
	input := func(topic string) state.Update[Doc] { return state.Writes(topicF.Set(topic)) }
	asking, err := docGraph(func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		ok, err := graph.Interrupt[bool](ctx, map[string]any{"question": "publish?"})
		if err != nil {
			return state.Update[Doc]{}, err
		}
		return state.Writes(approvedF.Set(ok)), nil
	}).Compile(graph.WithCheckpointer(other))
	require.NoError(t, err)
	_, err = asking.Resume(ctx, true, graph.WithThread(threadInterrupted))
	require.NoError(t, err)
	paused, err := docGraph(approve).Compile(graph.WithCheckpointer(other), graph.WithInterruptBefore("review"))
	require.NoError(t, err)
	_, err = paused.Invoke(ctx, input("again"), graph.WithThread(threadDone))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	failing, err := docGraph(func(ctx context.Context, d Doc) (state.Update[Doc], error) {
		return state.Update[Doc]{}, errors.New(reviewError)
	}).Compile(graph.WithCheckpointer(other))
	require.NoError(t, err)
	_, err = failing.Invoke(ctx, input("later"), graph.WithThread("failed-2"))
	require.ErrorContains(t, err, reviewError)
	require.NoError(t, other.Close())

	want[threadInterrupted] = "idle"
	want[threadDone] = "interrupted"
	want["failed-2"] = "error"
	check("written while the studio runs", want)
}
