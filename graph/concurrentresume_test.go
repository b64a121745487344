package graph_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// gatedProcess is one process's graph over its own handle on a shared
// SQLite file: START → (x ‖ y) → z, stopped before x and y; x and y write
// their name tagged with the process, and wait for release once entered.
type gatedProcess struct {
	saver   *sqlite.Saver
	c       *graph.Compiled[counter]
	entered chan string
	release chan struct{}
}

func newGatedProcess(t *testing.T, path, tag string) *gatedProcess {
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	p := &gatedProcess{saver: saver, entered: make(chan string, 2), release: make(chan struct{})}
	node := func(name string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			p.entered <- name
			<-p.release
			return state.Writes(itemsField.Set([]string{name + "-" + tag})), nil
		}
	}
	g := graph.New(schema).AddNode("x", node("x")).AddNode("y", node("y")).AddNode("z", visit("z")).
		AddEdge(graph.Start, "x").AddEdge(graph.Start, "y").AddJoin([]string{"x", "y"}, "z")
	p.c = mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithInterruptBefore("x", "y"))
	return p
}

// LangGraph's bug report #8796: two processes resume one thread whose step
// has parallel tasks; the one that lost the thread (its lease was broken,
// as a worker that takes a dead worker's run over breaks it, and another
// process took the thread) must leave nothing in it — not even the writes
// of its tasks that finish after the loss and before its heartbeat notices,
// which would otherwise be recorded against the checkpoint both resumed
// and stand as those tasks' results, beside the winner's different ones.
func TestALoserOfTheThreadLeavesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := newGatedProcess(t, path, "A"), newGatedProcess(t, path, "B")
	bg := context.Background()
	_, err := a.c.Invoke(bg, state.Writes(trailField.Set([]string{"in"})), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	stopped, err := a.c.State(bg, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y"}, stopped.Next)

	// A resumes; both its tasks are running.
	aDone := make(chan error, 1)
	go func() {
		_, err := a.c.Invoke(bg, zero, graph.WithThread("t"))
		aDone <- err
	}()
	<-a.entered
	<-a.entered
	// A's lease is broken (its process looks dead), and B resumes.
	info, err := b.saver.LeaseOf(bg, "t")
	require.NoError(t, err)
	require.NotNil(t, info)
	broke, err := b.saver.BreakLease(bg, "t", info.Holder)
	require.NoError(t, err)
	require.True(t, broke)
	bDone := make(chan error, 1)
	var bOut counter
	go func() {
		var err error
		bOut, err = b.c.Invoke(bg, zero, graph.WithThread("t"))
		bDone <- err
	}()
	<-b.entered
	<-b.entered
	// A's tasks finish first, before A learns of the loss: their writes
	// are refused.
	close(a.release)
	require.ErrorIs(t, <-aDone, checkpoint.ErrLeaseLost)
	close(b.release)
	require.NoError(t, <-bDone)
	require.Equal(t, []string{"x-B", "y-B"}, bOut.Items)
	require.Equal(t, []string{"in", "z"}, bOut.Trail)

	// Nothing of A's anywhere in the thread.
	for tup, err := range b.saver.List(bg, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		for _, w := range tup.PendingWrites {
			require.NotContains(t, string(w.Value), "-A", "checkpoint %s holds a write of the loser: task %s channel %s", tup.Config.CheckpointID, w.TaskID, w.Channel)
		}
		for ch, v := range tup.Checkpoint.Values {
			require.False(t, strings.Contains(string(v.Snapshot), "-A"), "checkpoint %s channel %s holds the loser's value", tup.Config.CheckpointID, ch)
		}
	}
	// The checkpoint both resumed records B's results.
	past, err := b.c.State(bg, graph.WithThread("t"), graph.WithCheckpoint(stopped.Config.CheckpointID))
	require.NoError(t, err)
	for _, task := range past.Tasks {
		if task.Result != nil {
			require.Contains(t, task.Result["items"], task.Node+"-B", "task %s", task.Node)
		}
	}
}
