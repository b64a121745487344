package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/a2a"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// Job is the remote agent's state.
type Job struct {
	Topic string   `json:"topic"`
	Log   []string `json:"log"`
}

var (
	jobTopic = state.Value("topic", func(j *Job) *string { return &j.Topic })
	jobLog   = state.Append("log", func(j *Job) *[]string { return &j.Log })
)

// agentServer serves, at /a2a/quiz, a graph that drafts, then asks two
// questions in turn; it counts the drafts and the message/send calls.
type agentServer struct {
	http   *httptest.Server
	drafts atomic.Int32
	sends  atomic.Int32
	polled chan struct{}      // a tasks/get came (buffered: one kept)
	gate   chan chan struct{} // the gated graph's wait node waits on what it sends
}

func newAgentServer(t *testing.T) *agentServer {
	as := &agentServer{polled: make(chan struct{}, 1), gate: make(chan chan struct{}, 1)}
	ask := func(name string) graph.NodeFunc[Job] {
		return func(ctx context.Context, j Job) (state.Update[Job], error) {
			answer, err := graph.Interrupt[string](ctx, name+" "+j.Topic+"?")
			if err != nil {
				return state.Update[Job]{}, err
			}
			return state.Writes(jobLog.Set([]string{name + " " + answer})), nil
		}
	}
	quiz, err := graph.New(state.NewSchema(jobTopic, jobLog)).
		AddNode("draft", func(ctx context.Context, j Job) (state.Update[Job], error) {
			as.drafts.Add(1)
			return state.Writes(jobLog.Set([]string{"drafted " + j.Topic})), nil
		}).
		AddNode("first", ask("first")).AddNode("second", ask("second")).
		AddEdge(graph.Start, "draft").AddEdge("draft", "first").AddEdge("first", "second").AddEdge("second", graph.End).
		Compile(graph.WithCheckpointer(memory.New()), graph.WithName("quiz"))
	require.NoError(t, err)
	gated, err := graph.New(state.NewSchema(jobTopic, jobLog)).
		AddNode("draft", func(ctx context.Context, j Job) (state.Update[Job], error) {
			as.drafts.Add(1)
			return state.Writes(jobLog.Set([]string{"drafted " + j.Topic})), nil
		}).
		AddNode("wait", func(ctx context.Context, j Job) (state.Update[Job], error) {
			release := make(chan struct{})
			select {
			case as.gate <- release:
			case <-ctx.Done():
				return state.Update[Job]{}, ctx.Err()
			}
			select {
			case <-release:
				return state.Writes(jobLog.Set([]string{"waited"})), nil
			case <-ctx.Done():
				return state.Update[Job]{}, ctx.Err()
			}
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "wait").AddEdge("wait", graph.End).
		Compile(graph.WithCheckpointer(memory.New()), graph.WithName("gated"))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("quiz", quiz), server.Register("gated", gated)}, server.WithA2A())
	require.NoError(t, err)
	as.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/a2a/") {
			body, _ := readAll(r)
			if strings.Contains(body, `"message/send"`) {
				as.sends.Add(1)
			}
			if strings.Contains(body, `"tasks/get"`) {
				select {
				case as.polled <- struct{}{}:
				default:
				}
			}
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		as.http.Close()
		require.NoError(t, srv.Close())
	})
	return as
}

// Trip is the caller's state.
type Trip struct {
	Topic   string `json:"topic"`
	Summary string `json:"summary"`
}

var (
	tripTopic   = state.Value("topic", func(t *Trip) *string { return &t.Topic })
	tripSummary = state.Value("summary", func(t *Trip) *string { return &t.Summary })
)

// caller is a graph whose "delegate" node asks the agent at url.
func caller(t *testing.T, url string) *graph.Compiled[Trip] { return callerOn(t, url, memory.New()) }

// callerOn is caller with its checkpoints in saver.
func callerOn(t *testing.T, url string, saver *memory.Saver) *graph.Compiled[Trip] {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := a2a.NewClient(url, a2a.WithHTTPClient(&http.Client{Transport: tr}), a2a.WithPollInterval(time.Millisecond))
	app, err := graph.New(state.NewSchema(tripTopic, tripSummary)).
		AddNode("delegate", a2a.Node(client,
			func(s Trip) ([]a2a.Part, error) {
				return []a2a.Part{a2a.DataPart(json.RawMessage(`{"topic":"` + s.Topic + `"}`))}, nil
			},
			func(s Trip, task *a2a.Task) (state.Update[Trip], error) {
				var out Job
				if err := json.Unmarshal(resultData(task), &out); err != nil {
					return state.Update[Trip]{}, err
				}
				return state.Writes(tripSummary.Set(strings.Join(out.Log, "; "))), nil
			})).
		AddEdge(graph.Start, "delegate").AddEdge("delegate", graph.End).
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

// resultData is the data part of a completed task's artifacts.
func resultData(task *a2a.Task) json.RawMessage {
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			if p.Kind == "data" {
				return p.Value()
			}
		}
	}
	return nil
}

func TestNodeAnswersTheAgentsQuestionsInTurn(t *testing.T) {
	t.Parallel()
	as := newAgentServer(t)
	app := caller(t, as.http.URL+"/a2a/quiz")
	ctx := context.Background()
	question := func(err error) any {
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Interrupts, 1)
		return ie.Interrupts[0].Value
	}

	_, err := app.Invoke(ctx, state.Writes(tripTopic.Set("nice")), graph.WithThread("t1"))
	require.Equal(t, "first nice?", question(err), "input-required is the caller's interrupt")
	_, err = app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"), graph.Resume("yes"))
	require.Equal(t, "second nice?", question(err))
	out, err := app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"), graph.Resume("no"))
	require.NoError(t, err)
	require.Equal(t, "drafted nice; first yes; second no", out.Summary)
	require.EqualValues(t, 1, as.drafts.Load(), "the remote task was started once")
	require.EqualValues(t, 3, as.sends.Load(), "the input and one message per answer")
}

// TestCallerCrashFollowsTheTaskItStarted kills the caller while the
// remote task works, and resumes the caller's thread in a fresh graph on
// the same checkpoints: the node follows the task it started instead of
// sending its message again.
func TestCallerCrashFollowsTheTaskItStarted(t *testing.T) {
	t.Parallel()
	as := newAgentServer(t)
	saver := memory.New()
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := callerOn(t, as.http.URL+"/a2a/gated", saver).Invoke(ctx, state.Writes(tripTopic.Set("lima")), graph.WithThread("t1"))
		done <- err
	}()
	release := <-as.gate // the remote task works
	<-as.polled          // and the caller follows it: its message is recorded
	kill()
	require.ErrorIs(t, <-done, context.Canceled)
	close(release)

	out, err := callerOn(t, as.http.URL+"/a2a/gated", saver).Invoke(context.Background(), state.Update[Trip]{}, graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, "drafted lima; waited", out.Summary)
	require.EqualValues(t, 1, as.sends.Load(), "the message was sent once")
	require.EqualValues(t, 1, as.drafts.Load())
}

func TestNodeFailureNamesTheAgent(t *testing.T) {
	t.Parallel()
	as := newAgentServer(t)
	app := caller(t, as.http.URL+"/a2a/missing")
	_, err := app.Invoke(context.Background(), state.Writes(tripTopic.Set("x")), graph.WithThread("t1"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "a2a: message/send at "+as.http.URL+"/a2a/missing")
}

// readAll reads a request's body and puts it back.
func readAll(r *http.Request) (string, error) {
	data, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	return string(data), err
}
