package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/remote"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

func TestRemoteEventsStreamInOrderUnderTheNodesNamespace(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("writer"), openSaver(t, dbPath(t)))

	var got []string
	var delegateTask string
	for ev, err := range app.Stream(context.Background(), state.Writes(tripTopic.Set("rome")), graph.WithThread("t1"),
		graph.StreamModes(graph.Custom|graph.Updates|graph.Values|graph.Messages), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Namespace == "" {
			if ev.Mode == graph.Updates && ev.Node == "delegate" {
				delegateTask = ev.TaskID
			}
			got = append(got, "caller "+ev.Mode.String()+" "+ev.Node)
			continue
		}
		re, ok := ev.Nested.(remote.Event)
		require.True(t, ok, "nested %T", ev.Nested)
		require.Equal(t, ev.Namespace, re.Namespace)
		require.NotEmpty(t, re.RunID)
		line := ev.Namespace + " " + ev.Mode.String() + " "
		switch ev.Mode {
		case graph.Messages:
			require.NotEmpty(t, ev.TaskID, "the remote task, from the tuple's metadata")
			got = append(got, line+"chunk="+string(ev.Chunk)+" id="+ev.MessageID+" node="+ev.Node)
			continue
		}
		line += compact(t, re.Data)
		switch ev.Mode {
		case graph.Updates:
			line += " node=" + ev.Node
		case graph.Custom:
			require.Equal(t, re.Data, ev.Custom)
		}
		got = append(got, line)
	}
	require.NotEmpty(t, delegateTask)
	ns := "delegate:" + delegateTask
	require.Equal(t, []string{
		"caller values ",
		ns + ` values {"answer":"","log":[],"topic":"rome"}`,
		ns + ` custom {"n":1}`,
		ns + ` custom {"n":2}`,
		ns + ` updates {"draft":{"log":["drafted rome"]}} node=draft`,
		ns + ` values {"answer":"","log":["drafted rome"],"topic":"rome"}`,
		ns + ` custom {"n":3}`,
		ns + ` messages chunk=pol id=m1 node=polish`,
		ns + ` updates {"polish":{"log":["polished"]}} node=polish`,
		ns + ` values {"answer":"","log":["drafted rome","polished"],"topic":"rome"}`,
		"caller updates delegate",
		"caller values ",
		"caller updates finish",
		"caller values ",
	}, got)

	snap, err := app.State(context.Background(), graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, "drafted rome; polished", snap.Values.Summary)
	require.True(t, snap.Values.Done)
	require.Len(t, rs.runs(snap.Values.RemoteThread), 1)
}

// TestRemoteEventsNeedSubgraphs: a caller that streams without
// WithSubgraphs sees its own events only, as with a local subgraph.
func TestRemoteEventsNeedSubgraphs(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("writer"), openSaver(t, dbPath(t)))
	var got []string
	for ev, err := range app.Stream(context.Background(), state.Writes(tripTopic.Set("rome")), graph.WithThread("t1"),
		graph.StreamModes(graph.Custom|graph.Updates)) {
		require.NoError(t, err)
		got = append(got, ev.Namespace+" "+ev.Mode.String()+" "+ev.Node)
	}
	require.Equal(t, []string{" updates delegate", " updates finish"}, got)
}

// compact returns data without insignificant space.
func compact(t *testing.T, data json.RawMessage) string {
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// TestRemoteInterruptIsAnsweredFromTheCaller runs the caller on a
// stategraph server of its own: the remote question is the caller
// thread's interrupt, and the caller's answer finishes the remote run.
func TestRemoteInterruptIsAnsweredFromTheCaller(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	hs, cl := serveCaller(t, rs.graph("reviewer"))
	post := func(path string, body any) map[string]any {
		data, err := json.Marshal(body)
		require.NoError(t, err)
		resp, err := cl.Post(hs.URL+path, "application/json", strings.NewReader(string(data)))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", path, out)
		return out
	}
	thread := post("/threads", map[string]any{})["thread_id"].(string)

	out := post("/threads/"+thread+"/runs/wait", map[string]any{"assistant_id": "trip", "input": map[string]any{"topic": "oslo"}})
	ints, _ := out["__interrupt__"].([]any)
	require.Len(t, ints, 1, "the remote question is the caller's interrupt: %v", out)
	require.Equal(t, map[string]any{"question": "publish oslo?"}, ints[0].(map[string]any)["value"])
	require.Equal(t, false, out["done"])

	out = post("/threads/"+thread+"/runs/wait", map[string]any{"assistant_id": "trip", "command": map[string]any{"resume": "yes"}})
	require.Equal(t, "drafted oslo; answered yes", out["summary"])
	require.Equal(t, true, out["done"])
	runs := rs.runs(out["remote_thread"].(string))
	require.Len(t, runs, 2, "the first run and the resume")
	require.EqualValues(t, 1, rs.drafts.Load(), "the remote draft ran once")
}

// TestCallerCrashResumesWithoutStartingTheRemoteRunTwice kills the
// caller (its context cancelled, its saver closed) while the remote run
// waits, and resumes the caller's thread in a fresh graph on the same
// database: the node joins the remote run in progress, or reads the one
// that finished meanwhile, and never starts a second.
func TestCallerCrashResumesWithoutStartingTheRemoteRunTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// finishFirst: the remote run ends before the caller resumes.
		finishFirst bool
	}{
		{name: "remote run still in progress is joined"},
		{name: "remote run finished meanwhile is read", finishFirst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := newRemoteServer(t)
			path := dbPath(t)
			first, err := graphOn(t, rs, path)
			require.NoError(t, err)

			ctx, kill := context.WithCancel(context.Background())
			defer kill()
			var release chan struct{}
			var remoteThread string
			for ev, err := range first.app.Stream(ctx, state.Writes(tripTopic.Set("lima")), graph.WithThread("t1"),
				graph.StreamModes(graph.Custom|graph.Updates), graph.WithSubgraphs()) {
				if err != nil {
					require.ErrorIs(t, err, context.Canceled)
					break
				}
				re, ok := ev.Nested.(remote.Event)
				if !ok {
					continue // the caller's own
				}
				remoteThread = re.ThreadID
				if re.Mode == "updates" { // the draft finished: the remote run now waits
					release = <-rs.gate
					kill()
				}
			}
			require.NotNil(t, release, "the remote run reached its wait")
			require.NoError(t, first.saver.Close()) // the caller's process is gone

			if tc.finishFirst {
				close(release)
				resp, err := http.Get(rs.http.URL + "/threads/" + remoteThread + "/runs/" + rs.runs(remoteThread)[0]["run_id"].(string) + "/join")
				require.NoError(t, err)
				resp.Body.Close()
			}
			second, err := graphOn(t, rs, path)
			require.NoError(t, err)
			var modes []string
			for ev, err := range second.app.Stream(context.Background(), state.Update[Trip]{}, graph.WithThread("t1"),
				graph.StreamModes(graph.Custom|graph.Updates), graph.WithSubgraphs()) {
				require.NoError(t, err)
				re, ok := ev.Nested.(remote.Event)
				if !ok {
					continue // the caller's own
				}
				require.Equal(t, remoteThread, re.ThreadID)
				modes = append(modes, re.Mode)
				if !tc.finishFirst && re.Mode == "updates" && release != nil {
					close(release) // the joined stream replayed the draft
					release = nil
				}
			}
			if tc.finishFirst {
				require.Empty(t, modes, "a finished remote run is read, not run again")
			} else {
				require.Equal(t, []string{"custom", "custom", "updates", "updates"}, modes, "the joined run's events, replayed then live")
			}
			snap, err := second.app.State(context.Background(), graph.WithThread("t1"))
			require.NoError(t, err)
			require.Equal(t, "drafted lima; waited", snap.Values.Summary)
			require.True(t, snap.Values.Done)
			require.Equal(t, remoteThread, snap.Values.RemoteThread)
			require.Len(t, rs.runs(remoteThread), 1, "one remote run")
			require.EqualValues(t, 1, rs.drafts.Load())
		})
	}
}

type callerOn struct {
	app   *graph.Compiled[Trip]
	saver interface{ Close() error }
}

// graphOn compiles the caller of the gated assistant on the SQLite file
// at path.
func graphOn(t *testing.T, rs *remoteServer, path string) (callerOn, error) {
	saver := openSaver(t, path)
	return callerOn{app: callerGraph(t, rs.graph("gated"), saver), saver: saver}, nil
}

func TestRequestsCarryTheCallersTraceContext(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("writer"), openSaver(t, dbPath(t)))
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	_, err := app.Invoke(ctx, state.Writes(tripTopic.Set("kyiv")), graph.WithThread("t1"))
	require.NoError(t, err)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	require.NotEmpty(t, rs.traceparent)
	for _, h := range rs.traceparent {
		if h == "" {
			continue // the test's own requests
		}
		require.Equal(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", h)
	}
	require.Contains(t, rs.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
}

func TestRemoteRunErrorNamesAssistantAndThread(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("missing"), openSaver(t, dbPath(t)))
	_, err := app.Invoke(context.Background(), state.Writes(tripTopic.Set("x")), graph.WithThread("t1"))
	require.Error(t, err)
	require.Contains(t, err.Error(), `remote: assistant "missing" at `+rs.http.URL+", thread ")
	require.Contains(t, err.Error(), "404")
}

// TestFailedRemoteRunIsContinuedWhenTheCallerResumes: a remote run that
// fails fails the node, naming the remote run; the caller's resume runs
// the remote thread again from its last checkpoint, so the remote steps
// that finished (draft) do not run again.
func TestFailedRemoteRunIsContinuedWhenTheCallerResumes(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("flaky"), openSaver(t, dbPath(t)))
	_, err := app.Invoke(context.Background(), state.Writes(tripTopic.Set("bern")), graph.WithThread("t1"))
	require.Error(t, err)
	require.Contains(t, err.Error(), `remote: assistant "flaky" at `+rs.http.URL)
	require.Contains(t, err.Error(), "the check failed once")

	out, err := app.Invoke(context.Background(), state.Update[Trip]{}, graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, "drafted bern; checked", out.Summary)
	require.Len(t, rs.runs(out.RemoteThread), 2, "the failed run and the one that continued it")
	require.EqualValues(t, 1, rs.drafts.Load(), "the remote draft ran once")
	require.EqualValues(t, 2, rs.checks.Load())
}

// TestRemoteEventsReachTheCallerServersStream streams the caller through
// its own server with stream_subgraphs: the remote custom events come, in
// order, as events of the delegate node's namespace ("custom|delegate:…"),
// their data the remote data; without stream_subgraphs none come.
func TestRemoteEventsReachTheCallerServersStream(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	hs, cl := serveCaller(t, rs.graph("writer"))
	stream := func(subgraphs bool) []string {
		body := fmt.Sprintf(`{"assistant_id": "trip", "input": {"topic": "riga"}, "stream_mode": ["custom"], "stream_subgraphs": %t}`, subgraphs)
		resp, err := cl.Post(hs.URL+"/runs/stream", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var got []string
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.HasPrefix(event, "custom") {
				mode, ns, _ := strings.Cut(event, "|")
				require.Equal(t, "custom", mode)
				require.Regexp(t, "^delegate:[0-9a-f-]+$", ns)
				got = append(got, compact(t, json.RawMessage(d)))
			}
		}
		require.NoError(t, sc.Err())
		return got
	}
	require.Equal(t, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, stream(true))
	require.Empty(t, stream(false))
}

// TestRelayedStateEventsReachTheCallerServersStreamAsSent streams the
// caller through its own server in the updates and values modes with
// stream_subgraphs: the remote run's events come under the delegate
// node's namespace with their data as the remote server sent it, never
// re-encoded in the caller's state type (which would give zero values).
func TestRelayedStateEventsReachTheCallerServersStreamAsSent(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	hs, cl := serveCaller(t, rs.graph("writer"))
	body := `{"assistant_id": "trip", "input": {"topic": "riga"}, "stream_mode": ["updates", "values"], "stream_subgraphs": true}`
	resp, err := cl.Post(hs.URL+"/runs/stream", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := map[string][]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			mode, ns, nested := strings.Cut(event, "|")
			if nested {
				require.Regexp(t, "^delegate:[0-9a-f-]+$", ns)
				got[mode] = append(got[mode], compact(t, json.RawMessage(d)))
			}
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, []string{`{"draft":{"log":["drafted riga"]}}`, `{"polish":{"log":["polished"]}}`}, got["updates"])
	require.NotEmpty(t, got["values"])
	require.JSONEq(t, `{"topic":"riga","log":["drafted riga","polished"],"answer":""}`, got["values"][len(got["values"])-1])
}
