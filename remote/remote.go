package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Graph is an assistant on a remote server that speaks the Agent Server
// API (a stategraph server or a LangGraph deployment), LangGraph's
// RemoteGraph. It is safe for concurrent use; Node makes nodes of it.
type Graph struct {
	url, assistant string
	client         *http.Client
	header         http.Header
}

// Option configures a Graph.
type Option func(*Graph)

// WithHTTPClient sends the requests through c instead of
// http.DefaultClient.
func WithHTTPClient(c *http.Client) Option { return func(g *Graph) { g.client = c } }

// WithHeader adds a header to every request, e.g. the remote server's
// credentials (X-Api-Key, Authorization). It appends: several calls add
// several headers.
func WithHeader(key, value string) Option {
	return func(g *Graph) { g.header.Add(key, value) }
}

// New returns the assistant assistantID of the server at baseURL.
func New(baseURL, assistantID string, opts ...Option) *Graph {
	g := &Graph{url: strings.TrimRight(baseURL, "/"), assistant: assistantID, client: http.DefaultClient,
		header: http.Header{}}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Event is an event of a remote run, as the node relays it to the
// caller's stream: the graph.Event's Nested, when the caller streams
// WithSubgraphs (see Node).
type Event struct {
	// Namespace is the namespace the event belongs to in the caller's
	// terms, as graph.Event.Namespace: the node's ("node:task-id", after
	// the caller's own namespace and "|"), then the remote subgraph's
	// namespace when the remote event came from one.
	Namespace string `json:"namespace"`
	// Mode is the remote stream mode (values, updates, custom, messages,
	// tasks).
	Mode string `json:"mode"`
	// Data is the remote event's payload, as the remote server sent it.
	Data json.RawMessage `json:"data"`
	// RunID and ThreadID name the remote run and thread.
	RunID    string `json:"run_id"`
	ThreadID string `json:"thread_id"`
}

// RawPayload returns Data: the event as the remote server sent it. An
// Agent Server relaying this event from a node (server's stream of the
// caller) sends a values or updates event's data from it as is.
func (e Event) RawPayload() json.RawMessage { return e.Data }

// Result is the outcome of a remote run that finished: the remote
// thread's id and its final state.
type Result struct {
	ThreadID string
	Values   json.RawMessage
}

// Node returns a node that runs the assistant with input(s) as its
// input, and returns output(s, result) once the remote thread finished.
//
// The remote thread's id is derived from the task's idempotency key
// (graph.RunInfo), so it is the same every time this task runs: after an
// error, an interrupt or a crash of the caller, the node looks at the
// remote thread before it starts anything. A run still in progress is
// joined (its events are streamed again), a finished one is read, a
// failed one is continued by a run without input (from the remote
// thread's last checkpoint), and a run with the input starts only when
// the thread has none. The remote run is started
// with on_disconnect continue, so a caller that dies does not stop it.
//
// When the caller streams WithSubgraphs, the remote run's events in the
// caller's modes (values, updates, custom, messages, tasks) come to the
// caller's stream as a subgraph's of the node would, LangGraph's
// RemoteGraph as a subgraph: Event.Namespace is the node's
// ("node:task-id"), then the remote subgraph's; Event.Nested is an Event
// holding the remote JSON (State and Update, of the caller's type, stay
// zero); Custom, Chunk, MessageID, Node, TaskID and Task are filled from
// it. An interrupt of the remote thread becomes the node's interrupt
// (graph.Interrupt), with the remote interrupt's value as its payload (a
// list of {id, value} when the remote thread stopped at several); the
// caller's answer is sent as the
// remote run's command {resume: answer}. Each request carries the W3C
// trace context of ctx (traceparent, tracestate).
func Node[S any](g *Graph, input func(S) (any, error), output func(S, Result) (state.Update[S], error)) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		info, _ := graph.RunInfo(ctx)
		c := &call{g: g, thread: ThreadID(info), ns: taskNamespace(info)}
		res, err := c.run(ctx, func() (any, error) { return input(s) })
		if err != nil {
			if errors.Is(err, graph.ErrInterrupted) || isPause(err) {
				return state.Update[S]{}, err
			}
			return state.Update[S]{}, fmt.Errorf("remote: assistant %q at %s, thread %s: %w", g.assistant, g.url, c.thread, err)
		}
		return output(s, res)
	}
}

// ThreadID returns the remote thread id of the task info describes: the
// same for every run of the task, different for every other task.
func ThreadID(info graph.Info) string {
	return uuid.NewSHA1(threadNS, []byte(info.IdempotencyKey)).String()
}

var threadNS = uuid.MustParse("1f6c2a7e-3b0d-4f8e-9a55-2c4d8e6b7f10")

// taskNamespace is the namespace of the node's task, as a subgraph's.
func taskNamespace(info graph.Info) string {
	ns := info.Node + ":" + info.TaskID
	if info.Namespace != "" {
		ns = info.Namespace + "|" + ns
	}
	return ns
}

// pause wraps the error graph.Interrupt returned, so that it is returned
// to the runtime as it is.
type pause struct{ err error }

func (p *pause) Error() string { return p.err.Error() }
func (p *pause) Unwrap() error { return p.err }

func isPause(err error) bool {
	var p *pause
	return errors.As(err, &p)
}
