package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/remote"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// langgraphServer runs LangGraph's own in-memory Agent Server (langgraphjs
// dev, @langchain/langgraph-cli, pinned in remote/testdata/langgraph) on
// the graph of remote/testdata/langgraph/graph.mjs, offline, and returns
// its URL; it skips the test when node or the npm packages are missing.
func langgraphServer(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("testdata", "langgraph")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: LangGraph's dev server cannot run")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "langgraphjs")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("@langchain/langgraph-cli is not installed: run npm ci --prefix %s", dir)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	cmd := exec.Command(filepath.Join("node_modules", ".bin", "langgraphjs"), "dev", "--port", fmt.Sprint(port), "--host", "127.0.0.1", "--no-browser")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LANGSMITH_TRACING=false", "LANGCHAIN_TRACING_V2=false", "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers go with it
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Server running at") {
				ready <- nil
				for sc.Scan() { // keep the pipe drained
				}
				return
			}
		}
		ready <- errors.New("the LangGraph dev server ended before it served")
	}()
	require.NoError(t, <-ready)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// TestRemoteNodeRunsALangGraphServersGraph runs the node against a real
// LangGraph Agent Server: the remote graph's events come under the
// node's namespace, its interrupt is the caller's, and the caller's
// answer finishes the remote run.
func TestRemoteNodeRunsALangGraphServersGraph(t *testing.T) {
	t.Parallel()
	url := langgraphServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	app := callerGraph(t, remote.New(url, "reviewer", remote.WithHTTPClient(&http.Client{Transport: tr})), openSaver(t, dbPath(t)))
	ctx := context.Background()

	var updates []string
	var interrupted bool
	for ev, err := range app.Stream(ctx, state.Writes(tripTopic.Set("oslo")), graph.WithThread("t1"),
		graph.StreamModes(graph.Updates|graph.Interrupts), graph.WithSubgraphs()) {
		require.NoError(t, err)
		switch {
		case ev.Mode == graph.Interrupts:
			interrupted = true
			require.Len(t, ev.Interrupts, 1)
			require.Equal(t, map[string]any{"question": "publish oslo?"}, jsonValue(t, ev.Interrupts[0].Value))
		case ev.Namespace != "":
			re := ev.Nested.(remote.Event)
			require.True(t, strings.HasPrefix(ev.Namespace, "delegate:"), ev.Namespace)
			updates = append(updates, ev.Node+" "+compact(t, re.Data))
		}
	}
	require.True(t, interrupted, "the remote interrupt is the caller's")
	require.Contains(t, updates, `draft {"draft":{"log":["drafted oslo"]}}`)

	out, err := app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, "drafted oslo; answered yes", out.Summary)
	require.True(t, out.Done)
	var runs []map[string]any
	resp, err := http.Get(url + "/threads/" + out.RemoteThread + "/runs")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&runs))
	require.Len(t, runs, 2, "the first run and the resume")
}
