package graph_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// crashGraph: a and b run in parallel in step 0, then c, then d. Every
// node appends its name to a log file when it finishes, so the test can
// count how often each ran across processes. b blocks forever when
// blockB is set (the child process, which is killed there).
func crashGraph(t testing.TB, dbPath, logPath string, blockB bool) *graph.Compiled[counter] {
	t.Helper()
	node := func(name string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			if name == "b" && blockB {
				<-ctx.Done() // killed here
				return state.Update[counter]{}, ctx.Err()
			}
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return state.Update[counter]{}, err
			}
			defer f.Close()
			if _, err := fmt.Fprintln(f, name); err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(trailField.Set([]string{name}), totalField.Set(len(name)+len(s.Trail))), nil
		}
	}
	saver, err := sqlite.Open(dbPath)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	g := graph.New(schema).
		AddNode("a", node("a")).AddNode("b", node("b")).AddNode("c", node("c")).AddNode("d", node("d")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").
		AddJoin([]string{"a", "b"}, "c").AddEdge("c", "d")
	// A short lease: the killed child's lease expires soon after the kill.
	return mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithLease(time.Second))
}

// TestCrashChild is the child process of TestKilledProcessResumes; it does
// nothing in a normal test run.
func TestCrashChild(t *testing.T) {
	db, log := os.Getenv("STATEGRAPH_CRASH_DB"), os.Getenv("STATEGRAPH_CRASH_LOG")
	if db == "" {
		t.Skip("child process of TestKilledProcessResumes")
	}
	c := crashGraph(t, db, log, true)
	for ev, err := range c.Stream(context.Background(), state.Writes(lastField.Set("go")), graph.WithThread("crash"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Task.Result && ev.Node == "a" {
			fmt.Println("a-saved") // a's writes are stored: kill me now
		}
	}
}

func TestKilledProcessResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Parallel()
	dir := t.TempDir()
	db, log := filepath.Join(dir, "crash.db"), filepath.Join(dir, "runs.log")

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), "STATEGRAPH_CRASH_DB="+db, "STATEGRAPH_CRASH_LOG="+log)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	saved := false
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == "a-saved" {
			saved = true
			break
		}
	}
	require.True(t, saved, "the child never reported a's writes saved")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err = cmd.Wait()
	require.Error(t, err) // killed

	// Resume in this process, on the same file and thread.
	c := crashGraph(t, db, log, false)
	snap, err := c.State(t.Context(), graph.WithThread("crash"))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, snap.Next, "a finished before the kill; only b is pending")
	// The dead child still holds the thread's lease until it expires.
	got, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("crash"), graph.WaitForThread())
	require.NoError(t, err)

	// The same graph run without a crash, on another thread.
	refLog := filepath.Join(dir, "ref.log")
	ref := crashGraph(t, filepath.Join(dir, "ref.db"), refLog, false)
	want, err := ref.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("ref"))
	require.NoError(t, err)
	require.Equal(t, want, got)

	runs, err := os.ReadFile(log)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a", "b", "c", "d"}, strings.Fields(string(runs)), "no finished node ran twice")
}
