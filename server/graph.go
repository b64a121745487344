package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Graph is a registered graph as the server sees it, whatever its state
// type: JSON in, JSON out. Register makes one from a *graph.Compiled[S].
type Graph interface {
	// ID is the graph's id (LangGraph's graph_id), unique in a server.
	ID() string
	// Saver is the graph's checkpointer; the server refuses a graph
	// without one.
	Saver() checkpoint.Saver
	// CheckInput reports whether input (a JSON object of field writes, or
	// null) is one Run would accept: an *InputError naming the field when
	// not.
	CheckInput(input json.RawMessage) error
	// Run runs the graph on a thread and yields its events.
	Run(ctx context.Context, in RunInput) iter.Seq2[Event, error]
	// State reads a thread's latest state, or the one at checkpointID.
	State(ctx context.Context, thread, checkpointID string) (*State, error)
	// History lists a thread's states, newest first.
	History(ctx context.Context, thread string, q HistoryQuery) ([]*State, error)
	// UpdateState writes values to the thread as if node asNode had
	// returned them ("" keeps the pending tasks), from checkpointID when
	// set (a fork). It returns the new checkpoint's config.
	UpdateState(ctx context.Context, thread, checkpointID string, values json.RawMessage, asNode string) (checkpoint.Config, error)
	// Drawing returns the graph's nodes and edges.
	Drawing() Drawing
	// Schemas returns the JSON schemas of the graph's input and state.
	Schemas() Schemas
}

// RunInput is what one run of a Graph is given, decoded from a run
// request.
type RunInput struct {
	Thread string
	RunID  string
	// Input is a JSON object of field writes, or empty to resume the
	// thread where it stopped.
	Input json.RawMessage
	// Resume answers the pending interrupt (HasResume set); ResumeByID
	// answers interrupts by id.
	HasResume  bool
	Resume     any
	ResumeByID map[string]any
	// Goto and Sends are a command's goto (LangGraph's Command(goto=…)):
	// the nodes and Sends to run next, beside the thread's pending tasks,
	// with Input as the command's update.
	Goto  []string    `json:",omitempty"`
	Sends []SendInput `json:",omitempty"`
	// CheckpointID replays from a past checkpoint (a fork).
	CheckpointID string
	Modes        graph.Mode
	// Subgraphs streams the events of subgraphs; Lifecycle has the graph
	// report them too, for the lifecycle mode, without streaming them.
	Subgraphs       bool
	Lifecycle       bool `json:",omitempty"`
	InterruptBefore []string
	InterruptAfter  []string
	RecursionLimit  int
	Metadata        map[string]any
	// Tags are the run's config tags (its messages' metadata carries them).
	Tags []string
	// AssistantID, Configurable and Context are the run's Config, which
	// its nodes read with ConfigOf.
	AssistantID  string         `json:",omitempty"`
	Configurable map[string]any `json:",omitempty"`
	Context      map[string]any `json:",omitempty"`
	// Durability is the run's durability: "sync", "async" or "exit"
	// ("": the graph's).
	Durability string `json:",omitempty"`
}

// HistoryQuery narrows History.
type HistoryQuery struct {
	Limit    int
	Before   string
	Metadata map[string]any
	// Namespace lists the checkpoints of a subgraph's namespace of the
	// thread (LangGraph's checkpoint_ns) instead of the thread's own.
	Namespace string
}

// Event is one event of a run with its state-typed parts already JSON.
type Event struct {
	Mode      graph.Mode
	Namespace string
	Step      int
	Node      string
	TaskID    string
	// Values is the state (Values events).
	Values json.RawMessage
	// Update is the task's writes as a JSON object (Updates, Tasks
	// results).
	Update json.RawMessage
	Task   *graph.TaskEvent
	// Input is a Send task's input as JSON, on its start (Tasks).
	Input  json.RawMessage
	Custom any
	Chunk  []byte
	// MessageID is the id of the message a Messages chunk belongs to,
	// when the node gave one (graph.StreamingFunc).
	MessageID  string
	Checkpoint *checkpoint.Config
	Metadata   *checkpoint.Metadata
	Interrupts []graph.Interruption
}

// State is a snapshot of a thread with its values as JSON.
type State struct {
	Values     json.RawMessage
	Next       []string
	Config     checkpoint.Config
	Parent     *checkpoint.Config
	Metadata   checkpoint.Metadata
	CreatedAt  time.Time
	Tasks      []graph.TaskInfo
	Interrupts []graph.Interruption
	// Subgraphs holds, by task id, the state of each pending subgraph
	// task, when the state was read with its subgraphs.
	Subgraphs map[string]*State
}

// stateQuery says which state a read wants: a checkpoint, a subgraph's
// namespace, and whether pending subgraph tasks carry their states.
type stateQuery struct {
	checkpointID string
	namespace    string
	subgraphs    bool
}

// nestedStater is a Graph (Register's) that reads subgraph namespaces
// and the states of pending subgraph tasks (GET
// /threads/{id}/state?subgraphs=true).
type nestedStater interface {
	nestedState(ctx context.Context, thread string, q stateQuery) (*State, error)
}

// InputError is a run or update input the graph cannot take: a field it
// does not have, or a value of the wrong type. The server answers 422.
type InputError struct {
	Field string
	Err   error
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("invalid input: %v", e.Err)
	}
	return fmt.Sprintf("invalid input: field %q: %v", e.Field, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// Register makes the server's entry for a compiled graph under id. The
// graph must have a checkpointer (graph.WithCheckpointer). Its state
// travels as a JSON object keyed by the schema's field names; an input
// object's keys are field writes, applied through the fields' reducers.
func Register[S any](id string, g *graph.Compiled[S]) Graph {
	return &typed[S]{id: id, g: g}
}

type typed[S any] struct {
	id string
	g  *graph.Compiled[S]

	listsOnce sync.Once
	lists     map[string]bool // the fields whose schema type is array
}

// listFields returns the fields whose values are lists, from the state's
// JSON schema.
func (t *typed[S]) listFields() map[string]bool {
	t.listsOnce.Do(func() {
		var sch struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		t.lists = map[string]bool{}
		if json.Unmarshal(t.Schemas().State, &sch) != nil {
			return
		}
		for name, p := range sch.Properties {
			if p.Type == "array" {
				t.lists[name] = true
			}
		}
	})
	return t.lists
}

var jsonCodec = checkpoint.JSON

func (t *typed[S]) ID() string              { return t.id }
func (t *typed[S]) Saver() checkpoint.Saver { return t.g.Checkpointer() }

// decode turns a JSON object of field writes into an update.
func (t *typed[S]) decode(raw json.RawMessage) (state.Update[S], error) {
	var u state.Update[S]
	if isNull(raw) {
		return u, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return u, &InputError{Err: fmt.Errorf("want a JSON object of fields: %w", err)}
	}
	sc := t.g.Schema()
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return sc.Index(names[i]) < sc.Index(names[j]) })
	for _, k := range names {
		if sc.Index(k) < 0 {
			return u, &InputError{Field: k, Err: fmt.Errorf("graph %q has no such field (fields: %s)", t.id, strings.Join(fieldNames(sc), ", "))}
		}
		w, err := sc.DecodeWrite(k, m[k], jsonCodec)
		if err != nil {
			return u, &InputError{Field: k, Err: err}
		}
		u.Writes = append(u.Writes, w)
	}
	return u, nil
}

func fieldNames[S any](sc *state.Schema[S]) []string {
	out := make([]string, sc.Len())
	for i := range out {
		out[i] = sc.Name(i)
	}
	return out
}

// encodeState encodes a state as a JSON object keyed by field name.
func (t *typed[S]) encodeState(s *S) (json.RawMessage, error) {
	m, err := t.g.Schema().EncodeState(s, jsonCodec)
	if err != nil {
		return nil, err
	}
	obj := make(map[string]json.RawMessage, len(m))
	lists := t.listFields()
	for k, v := range m {
		// A list field no one wrote is a nil slice, which encodes as
		// null; after a run it is often an empty one. Both are the empty
		// list, so clients (and the studio's diff) never see a change
		// from [] to null that did not happen.
		if lists[k] && isNull(v) {
			v = json.RawMessage("[]")
		}
		obj[k] = v
	}
	return json.Marshal(obj)
}

// encodeUpdate encodes an update's writes as a JSON object; several
// writes to one field become a list.
func (t *typed[S]) encodeUpdate(u state.Update[S]) (json.RawMessage, error) {
	sc := t.g.Schema()
	obj := make(map[string]json.RawMessage, len(u.Writes))
	for _, w := range u.Writes {
		ch, data, err := sc.EncodeWrite(w, jsonCodec)
		if err != nil {
			return nil, err
		}
		if prev, ok := obj[ch]; ok {
			data = json.RawMessage(fmt.Sprintf("[%s,%s]", prev, data))
		}
		obj[ch] = data
	}
	return json.Marshal(obj)
}

func (t *typed[S]) CheckInput(raw json.RawMessage) error {
	_, err := t.decode(raw)
	return err
}

func (t *typed[S]) Run(ctx context.Context, in RunInput) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		input, err := t.decode(in.Input)
		if err == nil {
			err = t.addGoto(&input, in.Goto, in.Sends)
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		opts := []graph.RunOption{graph.WithThread(in.Thread), graph.StreamModes(in.Modes)}
		if in.RunID != "" {
			opts = append(opts, graph.WithRunID(in.RunID))
		}
		if in.HasResume {
			opts = append(opts, graph.Resume(in.Resume))
		}
		if in.ResumeByID != nil {
			opts = append(opts, graph.ResumeByID(in.ResumeByID))
		}
		if in.CheckpointID != "" {
			opts = append(opts, graph.WithCheckpoint(in.CheckpointID))
		}
		if in.Subgraphs || in.Lifecycle {
			opts = append(opts, graph.WithSubgraphs())
		}
		if len(in.InterruptBefore) > 0 {
			opts = append(opts, graph.InterruptBefore(t.expand(in.InterruptBefore)...))
		}
		if len(in.InterruptAfter) > 0 {
			opts = append(opts, graph.InterruptAfter(t.expand(in.InterruptAfter)...))
		}
		if in.RecursionLimit > 0 {
			opts = append(opts, graph.WithRecursionLimit(in.RecursionLimit))
		}
		if len(in.Metadata) > 0 {
			opts = append(opts, graph.WithMetadata(in.Metadata))
		}
		switch in.Durability {
		case "sync":
			opts = append(opts, graph.WithRunDurability(graph.DurabilitySync))
		case "async":
			opts = append(opts, graph.WithRunDurability(graph.DurabilityAsync))
		case "exit":
			opts = append(opts, graph.WithRunDurability(graph.DurabilityExit))
		}
		for ev, err := range t.g.Stream(withConfig(ctx, in), input, opts...) {
			if err != nil {
				yield(Event{}, err)
				return
			}
			out := Event{
				Mode: ev.Mode, Namespace: ev.Namespace, Step: ev.Step, Node: ev.Node, TaskID: ev.TaskID,
				Task: ev.Task, Custom: ev.Custom, Chunk: ev.Chunk, MessageID: ev.MessageID, Checkpoint: ev.Checkpoint,
				Metadata: ev.Metadata, Interrupts: ev.Interrupts,
			}
			relay, relayed := ev.Nested.(relayedEvent)
			switch {
			case relayed && ev.Mode == graph.Values:
				out.Values = relay.RawPayload()
			case relayed && ev.Mode == graph.Updates:
				out.Update, err = relayedUpdate(ev.Node, relay.RawPayload())
			case ev.Mode == graph.Values:
				out.Values, err = t.encodeState(&ev.State)
			case ev.Mode == graph.Updates || ev.Mode == graph.Tasks:
				if ev.Mode == graph.Updates || (ev.Task != nil && ev.Task.Result) {
					out.Update, err = t.encodeUpdate(ev.Update)
				} else if ev.Task != nil && ev.Task.Arg != nil {
					out.Input, err = t.encodeArg(ev.Task.Arg)
				}
			}
			if err != nil {
				yield(Event{}, fmt.Errorf("graph %q: encode %s event of node %q: %w", t.id, ev.Mode, ev.Node, err))
				return
			}
			if !yield(out, nil) {
				return
			}
		}
	}
}

// encodeArg encodes a Send task's input: a state by field name, another
// argument as JSON.
func (t *typed[S]) encodeArg(arg any) (json.RawMessage, error) {
	if s, ok := arg.(*S); ok {
		return t.encodeState(s)
	}
	return json.Marshal(arg)
}

// addGoto adds a command's gotos and Sends to input; a Send's input is
// the state its node runs with.
func (t *typed[S]) addGoto(input *state.Update[S], gotos []string, sends []SendInput) error {
	input.Goto = append(input.Goto, gotos...)
	for i, send := range sends {
		var m map[string]json.RawMessage
		if !isNull(send.Input) {
			if err := json.Unmarshal(send.Input, &m); err != nil {
				return &InputError{Field: fmt.Sprintf("command.goto[%d].input", i), Err: err}
			}
		}
		fields := make(map[string][]byte, len(m))
		for k, v := range m {
			fields[k] = v
		}
		arg, err := t.g.Schema().DecodeState(fields, jsonCodec)
		if err != nil {
			return &InputError{Field: fmt.Sprintf("command.goto[%d].input", i), Err: err}
		}
		input.Sends = append(input.Sends, state.Send[S]{Node: send.Node, Arg: arg})
	}
	return nil
}

// expand turns LangGraph's "*" (every node) into the node names.
func (t *typed[S]) expand(nodes []string) []string {
	for _, n := range nodes {
		if n == "*" {
			return t.g.Nodes()
		}
	}
	return nodes
}

func (t *typed[S]) snapshot(s *graph.Snapshot[S]) (*State, error) {
	vals, err := t.encodeState(&s.Values)
	if err != nil {
		return nil, fmt.Errorf("graph %q: encode state of thread %q: %w", t.id, s.Config.ThreadID, err)
	}
	st := &State{
		Values: vals, Next: s.Next, Config: s.Config, Parent: s.Parent, Metadata: s.Metadata,
		CreatedAt: s.CreatedAt, Tasks: s.Tasks, Interrupts: s.Interrupts,
	}
	for _, task := range s.Tasks {
		sub, ok := task.State.(*graph.Snapshot[S])
		if !ok {
			continue
		}
		nested, err := t.snapshot(sub)
		if err != nil {
			return nil, err
		}
		if st.Subgraphs == nil {
			st.Subgraphs = map[string]*State{}
		}
		st.Subgraphs[task.ID] = nested
	}
	return st, nil
}

func (t *typed[S]) nestedState(ctx context.Context, thread string, q stateQuery) (*State, error) {
	opts := []graph.StateOption{graph.WithThread(thread)}
	if q.checkpointID != "" {
		opts = append(opts, graph.WithCheckpoint(q.checkpointID))
	}
	if q.namespace != "" {
		opts = append(opts, graph.WithNamespace(q.namespace))
	}
	if q.subgraphs {
		opts = append(opts, graph.WithSubgraphs())
	}
	s, err := t.g.State(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return t.snapshot(s)
}

func (t *typed[S]) State(ctx context.Context, thread, checkpointID string) (*State, error) {
	opts := []graph.StateOption{graph.WithThread(thread)}
	if checkpointID != "" {
		opts = append(opts, graph.WithCheckpoint(checkpointID))
	}
	s, err := t.g.State(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return t.snapshot(s)
}

func (t *typed[S]) History(ctx context.Context, thread string, q HistoryQuery) ([]*State, error) {
	opts := []graph.HistoryOption{graph.WithThread(thread)}
	if q.Limit > 0 {
		opts = append(opts, graph.WithLimit(q.Limit))
	}
	if q.Before != "" {
		opts = append(opts, graph.WithBefore(q.Before))
	}
	if len(q.Metadata) > 0 {
		opts = append(opts, graph.WithFilter(q.Metadata))
	}
	if q.Namespace != "" {
		opts = append(opts, graph.WithNamespace(q.Namespace))
	}
	var out []*State
	for s, err := range t.g.History(ctx, opts...) {
		if err != nil {
			return nil, err
		}
		st, err := t.snapshot(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func (t *typed[S]) UpdateState(ctx context.Context, thread, checkpointID string, values json.RawMessage, asNode string) (checkpoint.Config, error) {
	u, err := t.decode(values)
	if err != nil {
		return checkpoint.Config{}, err
	}
	opts := []graph.UpdateOption{graph.WithThread(thread)}
	if checkpointID != "" {
		opts = append(opts, graph.WithCheckpoint(checkpointID))
	}
	if asNode != "" && asNode != graph.Start && !contains(t.g.Nodes(), asNode) {
		return checkpoint.Config{}, &InputError{Field: "as_node", Err: fmt.Errorf("graph %q has no node %q", t.id, asNode)}
	}
	return t.g.UpdateState(ctx, u, asNode, opts...)
}

func (t *typed[S]) Drawing() Drawing { return drawingFromMermaid(t.g.Nodes(), t.g.Mermaid()) }

func (t *typed[S]) Schemas() Schemas { return schemasOf(t.g.Schema()) }

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

var errNoSaver = errors.New("server: graph has no checkpointer (compile it with graph.WithCheckpointer)")
