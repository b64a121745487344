package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/a2a"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// jsAgent runs mcp/testdata/js/a2a_agent.mjs, an agent served by the
// official A2A JS SDK's server side, and returns its JSON-RPC URL; it
// skips the test when node or the npm packages are missing.
func jsAgent(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "mcp", "testdata", "js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the A2A JS SDK's server cannot run")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk")); err != nil {
		t.Skipf("@a2a-js/sdk is not installed: run npm ci --prefix %s", dir)
	}
	cmd := exec.Command(node, "a2a_agent.mjs")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close() // the agent stops when its stdin closes
		require.NoError(t, cmd.Wait())
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the agent prints its URL")
	return strings.TrimSpace(line)
}

// TestNodeAsksTheJSSDKsAgent runs the node against the A2A JS SDK's
// server: input-required is the caller's interrupt, and the answer goes
// back in the same task, which completes with the agent's artifact.
func TestNodeAsksTheJSSDKsAgent(t *testing.T) {
	t.Parallel()
	url := jsAgent(t)
	type Q struct {
		Reply string `json:"reply"`
	}
	reply := state.Value("reply", func(q *Q) *string { return &q.Reply })
	var taskIDs []string
	app, err := graph.New(state.NewSchema(reply)).
		AddNode("delegate", a2a.Node(a2a.NewClient(url, a2a.WithPollInterval(time.Millisecond)),
			func(Q) ([]a2a.Part, error) { return []a2a.Part{a2a.TextPart("hi")}, nil },
			func(q Q, task *a2a.Task) (state.Update[Q], error) {
				taskIDs = append(taskIDs, task.ID)
				var out Q
				err := json.Unmarshal(resultData(task), &out)
				return state.Writes(reply.Set(out.Reply)), err
			})).
		AddEdge(graph.Start, "delegate").AddEdge("delegate", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)

	_, err = app.Invoke(context.Background(), state.Update[Q]{}, graph.WithThread("t1"))
	var ie *graph.InterruptError
	require.True(t, errors.As(err, &ie), "input-required is an interrupt: %v", err)
	require.Equal(t, "your name?", ie.Interrupts[0].Value)
	out, err := app.Invoke(context.Background(), state.Update[Q]{}, graph.WithThread("t1"), graph.Resume("Ada"))
	require.NoError(t, err)
	require.Equal(t, "hello, Ada", out.Reply)
	require.Len(t, taskIDs, 1)
}
