package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
)

// TestEmbeddedServerProcess is the embedded server of the process tests;
// it does nothing in a normal test run. It serves the gate graph on the
// SQLite files of the directory it is given (checkpoints and run
// records, as `stategraph serve` does), on a loopback port it prints
// ("listening URL"), until its stdin closes or it is killed. POST
// /__test/open/{thread} opens the thread's gate in this process.
func TestEmbeddedServerProcess(t *testing.T) {
	dir := os.Getenv("STATEGRAPH_SERVER_EMBEDDED_DIR")
	if dir == "" {
		t.Skip("embedded server of the process tests")
	}
	saver, err := sqlite.Open(filepath.Join(dir, "checkpoints.db"))
	require.NoError(t, err)
	defer saver.Close()
	st, err := server.OpenSQLiteStore(filepath.Join(dir, "runs.db"))
	require.NoError(t, err)
	defer st.Close()
	gates := &threadGates{open: map[string]chan struct{}{}}
	srv, err := server.New([]server.Graph{server.Register("gate", gates.graph(t, saver))}, server.WithRecords(st))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /__test/open/{thread}", func(w http.ResponseWriter, r *http.Request) {
		gates.openThread(r.PathValue("thread"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("/", srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // until the process ends
	fmt.Printf("listening http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the parent closes it
	require.NoError(t, srv.Close())
}

// embedded is a running embedded server process.
type embedded struct {
	url string
	cmd *exec.Cmd
}

// startEmbedded starts an embedded server process on the files of dir.
func startEmbedded(t *testing.T, dir string) *embedded {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEmbeddedServerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STATEGRAPH_SERVER_EMBEDDED_DIR="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill() //nolint:errcheck // gone already, or to be
		<-exited
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "listening "); ok {
			go func() {
				defer close(exited)
				for sc.Scan() { // the test binary's own output
				}
				cmd.Wait() //nolint:errcheck // killed, or closed
			}()
			return &embedded{url: url, cmd: cmd}
		}
	}
	close(exited)
	t.Fatal("the embedded server process ended before it listened")
	return nil
}

// call sends a JSON request to the process and decodes its JSON answer.
func (e *embedded) call(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if len(bytes.TrimSpace(data)) > 0 {
		require.NoError(t, json.Unmarshal(data, &out), "%s %s answered %s", method, path, data)
	}
	return resp.StatusCode, out
}

// TestRunLostWithItsKilledProcessIsSeenDeadAfterRestart: a server process
// SIGKILLed in the middle of a streamed run, then started again on the
// same files, says the run failed (its record, its join, its thread) and
// resumes the thread at once, not once the dead run's lease expired.
func TestRunLostWithItsKilledProcessIsSeenDeadAfterRestart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a process is known gone only on Linux; elsewhere the lease's expiry frees the thread")
	}
	t.Parallel()
	dir := t.TempDir()
	a := startEmbedded(t, dir)
	code, _ := a.call(t, "POST", "/threads", map[string]any{"thread_id": "t"})
	require.Equal(t, 200, code)
	body, err := json.Marshal(map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": []string{"in"}}, "stream_mode": []string{"updates"}})
	require.NoError(t, err)
	resp, err := http.Post(a.url+"/threads/t/runs/stream", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	loc := resp.Header.Get("Content-Location")
	require.NotEmpty(t, loc)
	got := readEvents(t, bufio.NewReader(resp.Body), 2) // metadata, updates of first: the run waits at its gate
	require.Equal(t, []string{"metadata", "updates"}, names(got))
	require.NoError(t, a.cmd.Process.Kill()) // SIGKILL, mid-run
	_, _ = io.Copy(io.Discard, resp.Body)    // the stream ends with the process
	resp.Body.Close()

	b := startEmbedded(t, dir)
	code, run := b.call(t, "GET", loc, nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "error", run["status"], "the run's process is gone: nothing executes it")
	code, thread := b.call(t, "GET", "/threads/t", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "error", thread["status"], "the thread agrees with its run")
	assert.Contains(t, thread["error"], "its process")
	code, joined := b.call(t, "GET", loc+"/join", nil)
	require.Equal(t, 200, code)
	require.Contains(t, joined, "__error__", "a join answers the run's failure, not its partial state")
	assert.Contains(t, joined["__error__"].(map[string]any)["message"], "ended before the run finished")

	code, _ = b.call(t, "POST", "/__test/open/t", nil)
	require.Equal(t, 204, code)
	start := time.Now()
	code, out := b.call(t, "POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "gate"})
	elapsed := time.Since(start)
	require.Equal(t, 200, code)
	require.NotContains(t, out, "__error__", "the resume is not refused as busy")
	assert.Equal(t, []any{"in", "first", "waited"}, out["steps"], "resumed from the last checkpoint: first is not run again")
	// The figure the issue asks for is a resume within 1 s (measured in
	// tens of milliseconds); the bound here only shows that the resume did
	// not wait for the dead run's lease (graph.DefaultLeaseTTL, 15 s), so
	// that a loaded machine cannot fail the test.
	t.Logf("the resume (POST runs/wait on the restarted server) took %s", elapsed)
	assert.Less(t, elapsed, graph.DefaultLeaseTTL/3, "the resume does not wait for the dead run's lease")
	code, thread = b.call(t, "GET", "/threads/t", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "idle", thread["status"])
}
