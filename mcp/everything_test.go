package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/mcp"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// everything returns node and the path of the MCP reference server
// installed from testdata/js/package-lock.json, or skips the test.
func everything(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on this machine: the tests against @modelcontextprotocol/server-everything skip")
	}
	script, _ = filepath.Abs("testdata/js/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(script); err != nil {
		t.Skip("testdata/js/node_modules is missing: run npm ci --prefix mcp/testdata/js --no-audit --no-fund")
	}
	return node, script
}

func toolNamed(t testing.TB, ts []tools.Tool, name string) *mcp.Tool {
	t.Helper()
	for _, tl := range ts {
		if tl.Name() == name {
			return tl.(*mcp.Tool)
		}
	}
	require.Failf(t, "no such tool", "%q", name)
	return nil
}

// stdioServer is server-everything spoken to over stdio.
func stdioServer(t *testing.T) mcp.Server {
	node, script := everything(t)
	return mcp.Server{Name: "everything", Command: node, Args: []string{script, "stdio"}}
}

// httpServer starts server-everything's streamable HTTP server on a free
// port and returns its /mcp URL and a function that kills it.
func httpServer(t *testing.T) (string, func()) {
	t.Helper()
	node, script := everything(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var once sync.Once
	kill := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(kill)
	// It says on stderr when it listens.
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	// A bound on a failure, not a wait for success: the select ends as
	// soon as the server says it listens.
	bound, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	select {
	case <-ready:
	case <-bound.Done():
		require.FailNow(t, "server-everything did not start listening")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port), kill
}

func TestEverythingToolsAreTypedTools(t *testing.T) {
	url, _ := httpServer(t)
	for _, tc := range []struct {
		name string
		srv  mcp.Server
	}{
		{"stdio", stdioServer(t)},
		{"streamable HTTP", mcp.Server{Name: "everything", URL: url}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			c, err := mcp.Connect(ctx, tc.srv)
			require.NoError(t, err)
			defer c.Close()
			ts := c.Tools()

			echo := toolNamed(t, ts, "echo")
			assert.Equal(t, "everything", echo.Server())
			assert.NotEmpty(t, echo.Description())
			assert.Contains(t, string(echo.InputSchema()), `"message"`)
			assert.False(t, echo.SideEffects(), "echo is readOnlyHint")
			assert.True(t, toolNamed(t, ts, "toggle-simulated-logging").SideEffects(), "readOnlyHint false")
			sum := toolNamed(t, ts, "get-sum")
			assert.Equal(t, mcp.Annotations{ReadOnly: true, Idempotent: true}, sum.Annotations())

			out, err := echo.Call(ctx, `{"message":"hello from stategraph"}`)
			require.NoError(t, err)
			assert.Equal(t, "Echo: hello from stategraph", out)
			out, err = sum.Call(ctx, `{"a":2,"b":40}`)
			require.NoError(t, err)
			assert.Contains(t, out, "42")
		})
	}
}

func TestEverythingBadInputIsRefusedBeforeTheCall(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t))
	require.NoError(t, err)
	defer c.Close()
	sum := toolNamed(t, c.Tools(), "get-sum")
	for _, tc := range []struct{ input, field string }{
		{`{"a":1}`, `missing required field "b"`},
		{`{"a":"one","b":2}`, `field "a": want number`},
		{`[1,2]`, `want a JSON object`},
	} {
		_, err := sum.Call(t.Context(), tc.input)
		require.ErrorIs(t, err, plan.ErrBadInput, tc.input)
		assert.ErrorContains(t, err, tc.field)
		assert.ErrorContains(t, err, `"get-sum"`)
	}
}

func TestEverythingFailuresNameTheServerAndTool(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t))
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()

	// A value the server refuses (its own check, past ours): a tool
	// error or a JSON-RPC error, either naming server and tool.
	_, err = toolNamed(t, ts, "get-resource-reference").Call(t.Context(), `{"resourceType":"Text","resourceId":-7}`)
	require.Error(t, err)
	var te *mcp.ToolError
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &te) || errors.As(err, &rpc), "%v", err)
	assert.ErrorContains(t, err, `server "everything"`)
	assert.ErrorContains(t, err, `"get-resource-reference"`)
	assert.NotErrorIs(t, err, mcp.ErrServerDown)

	// The connection is still good.
	out, err := toolNamed(t, ts, "echo").Call(t.Context(), `{"message":"still here"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: still here", out)
}

func TestEverythingCallTimeoutCancelsTheCall(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t), mcp.WithCallTimeout(300*time.Millisecond))
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()
	_, err = toolNamed(t, ts, "trigger-long-running-operation").Call(t.Context(), `{"duration":30,"steps":3}`)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, `server "everything": tool "trigger-long-running-operation": no result within 300ms`)
	assert.Equal(t, plan.ErrKindTimeout, plan.ClassifyError(err))
	out, err := toolNamed(t, ts, "echo").Call(t.Context(), `{"message":"after"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: after", out)
}

func TestEverythingToolListFollowsListChanged(t *testing.T) {
	// server-everything registers the tools that depend on the client's
	// capabilities (get-roots-list: roots, which the Go SDK's client
	// declares) once initialized, and says so with
	// notifications/tools/list_changed.
	changed := make(chan []tools.Tool, 4)
	c, err := mcp.Connect(t.Context(), stdioServer(t), mcp.WithToolsChanged(func(ts []tools.Tool) { changed <- ts }))
	require.NoError(t, err)
	defer c.Close()
	bound, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	select {
	case ts := <-changed:
		assert.NotNil(t, toolNamed(t, ts, "get-roots-list"))
		assert.NotNil(t, toolNamed(t, ts, "echo"))
	case <-bound.Done():
		require.FailNow(t, "no list_changed from server-everything")
	}
	toolNamed(t, c.Tools(), "get-roots-list")
}

// spyTransport signals each tools/call request it writes.
type spyTransport struct {
	sdk.Transport
	calls chan<- struct{}
}

func (s spyTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := s.Transport.Connect(ctx)
	return spyConn{conn, s.calls}, err
}

type spyConn struct {
	sdk.Connection
	calls chan<- struct{}
}

func (s spyConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := s.Connection.Write(ctx, m)
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		s.calls <- struct{}{}
	}
	return err
}

func TestEverythingKilledOverStdioMidCallIsReportedAndReconnected(t *testing.T) {
	node, script := everything(t)
	calls := make(chan struct{}, 8)
	var mu sync.Mutex
	var procs []*exec.Cmd
	srv := mcp.Server{Name: "everything", Transport: func() sdk.Transport {
		cmd := exec.Command(node, script, "stdio")
		mu.Lock()
		procs = append(procs, cmd)
		mu.Unlock()
		return spyTransport{&sdk.CommandTransport{Command: cmd}, calls}
	}}
	c, err := mcp.Connect(t.Context(), srv)
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()
	long := toolNamed(t, ts, "trigger-long-running-operation")

	done := make(chan error, 1)
	go func() {
		_, err := long.Call(t.Context(), `{"duration":60,"steps":2}`)
		done <- err
	}()
	<-calls // the call is on the wire: kill the server under it
	mu.Lock()
	first := procs[0]
	mu.Unlock()
	require.NoError(t, first.Process.Kill())
	err = <-done
	require.ErrorIs(t, err, mcp.ErrServerDown)
	assert.ErrorContains(t, err, `"everything" died during a call of tool "trigger-long-running-operation"`)

	out, err := toolNamed(t, ts, "echo").Call(t.Context(), `{"message":"again"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: again", out)
	mu.Lock()
	assert.Len(t, procs, 2, "the next call started the server again")
	mu.Unlock()
}

func TestEverythingKilledOverHTTPMidCallIsReportedAndReconnected(t *testing.T) {
	target, kill := httpServer(t)
	// A proxy in front of the server tells when the call reaches it, and
	// lets the restarted server (on another port) take its place.
	var upstream atomic.Pointer[url.URL]
	origin := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		u.Path = ""
		return u
	}
	upstream.Store(origin(target))
	calls := make(chan struct{}, 8)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		rp := httputil.NewSingleHostReverseProxy(upstream.Load())
		rp.FlushInterval = -1
		rp.ErrorLog = log.New(io.Discard, "", 0)
		if strings.Contains(string(body), `"tools/call"`) {
			select {
			case calls <- struct{}{}:
			default:
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	c, err := mcp.Connect(t.Context(), mcp.Server{Name: "everything", URL: proxy.URL + "/mcp"})
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()
	done := make(chan error, 1)
	go func() {
		_, err := toolNamed(t, ts, "trigger-long-running-operation").Call(t.Context(), `{"duration":60,"steps":2}`)
		done <- err
	}()
	<-calls
	kill()
	err = <-done
	require.ErrorIs(t, err, mcp.ErrServerDown)
	assert.ErrorContains(t, err, `"everything" died during a call of tool "trigger-long-running-operation"`)

	again, _ := httpServer(t)
	upstream.Store(origin(again))
	out, err := toolNamed(t, ts, "echo").Call(t.Context(), `{"message":"again"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: again", out)
}

type progressState struct{ Out string }

var progressOut = state.Value("out", func(s *progressState) *string { return &s.Out })

func TestEverythingProgressReachesTheCustomStream(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t))
	require.NoError(t, err)
	defer c.Close()
	long := toolNamed(t, c.Tools(), "trigger-long-running-operation")
	app, err := graph.New(state.NewSchema(progressOut)).
		AddNode("work", func(ctx context.Context, _ progressState) (state.Update[progressState], error) {
			out, err := long.Call(ctx, `{"duration":0.2,"steps":2}`)
			return state.Writes(progressOut.Set(out)), err
		}).
		AddEdge(graph.Start, "work").
		AddEdge("work", graph.End).
		Compile()
	require.NoError(t, err)
	var got []mcp.Progress
	var final string
	for ev, err := range app.Stream(t.Context(), state.Update[progressState]{}, graph.StreamModes(graph.Custom, graph.Values)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Custom:
			got = append(got, ev.Custom.(mcp.Progress))
		case graph.Values:
			final = ev.State.Out
		}
	}
	assert.Equal(t, []mcp.Progress{
		{Server: "everything", Tool: "trigger-long-running-operation", Progress: 1, Total: 2},
		{Server: "everything", Tool: "trigger-long-running-operation", Progress: 2, Total: 2},
	}, got)
	assert.Contains(t, final, "Long running operation completed")
}
