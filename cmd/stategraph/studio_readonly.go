package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
)

// readOnlyGraphID is the graph of the threads whose fields no served
// graph has: the studio shows their checkpoints and refuses to run or
// edit them.
const readOnlyGraphID = "read-only"

// readOnlyReasonKey is the thread record's metadata key that says why a
// thread is read-only; the page shows it.
const readOnlyReasonKey = "read_only_reason"

// readOnlyGraph reads the checkpoints of threads written by a graph the
// studio does not serve, as JSON straight from the database (the
// inspector's reading), and refuses runs and edits, naming the thread's
// reason.
type readOnlyGraph struct{ saver checkpoint.Saver }

var errReadOnly = errors.New("the thread was written by a graph this studio does not serve, so it is read-only: open it with the program that wrote it to run it on")

func (g readOnlyGraph) ID() string              { return readOnlyGraphID }
func (g readOnlyGraph) Saver() checkpoint.Saver { return g.saver }
func (g readOnlyGraph) CheckInput(json.RawMessage) error {
	return &server.InputError{Err: errReadOnly}
}

func (g readOnlyGraph) Run(ctx context.Context, in server.RunInput) iter.Seq2[server.Event, error] {
	return func(yield func(server.Event, error) bool) {
		yield(server.Event{}, fmt.Errorf("thread %q: %w", in.Thread, errReadOnly))
	}
}

func (g readOnlyGraph) UpdateState(ctx context.Context, thread, checkpointID string, values json.RawMessage, asNode string) (checkpoint.Config, error) {
	return checkpoint.Config{}, &server.InputError{Err: fmt.Errorf("thread %q: %w", thread, errReadOnly)}
}

func (g readOnlyGraph) Drawing() server.Drawing {
	return server.Drawing{Nodes: []server.DrawingNode{}, Edges: []server.DrawingEdge{}}
}

func (g readOnlyGraph) Schemas() server.Schemas {
	empty := json.RawMessage(`{"type":"object","properties":{}}`)
	return server.Schemas{Input: empty, Output: empty, State: empty}
}

func (g readOnlyGraph) State(ctx context.Context, thread, checkpointID string) (*server.State, error) {
	tup, err := g.saver.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: checkpointID})
	if err != nil {
		return nil, err
	}
	return stateOfTuple(tup)
}

func (g readOnlyGraph) History(ctx context.Context, thread string, q server.HistoryQuery) ([]*server.State, error) {
	var out []*server.State
	for tup, err := range g.saver.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Limit: q.Limit, Before: q.Before, Filter: q.Metadata}) {
		if err != nil {
			return nil, err
		}
		st, err := stateOfTuple(tup)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// stateOfTuple is a checkpoint as the server shows a state: its fields as
// JSON, what runs next, its pending errors and interrupts.
func stateOfTuple(tup *checkpoint.Tuple) (*server.State, error) {
	values, err := inspect.Values(tup)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %q: %w", tup.Config.CheckpointID, err)
	}
	sched, err := inspect.ParseSchedule(tup)
	if err != nil {
		return nil, err
	}
	pending, err := inspect.Pending(tup)
	if err != nil {
		return nil, err
	}
	st := &server.State{Values: raw, Next: sched.Unfinished(tup), Config: tup.Config, Parent: tup.Parent, Metadata: tup.Metadata}
	st.CreatedAt = tup.Checkpoint.CreatedAt
	failed := map[string]string{}
	for _, e := range pending.Errors {
		failed[e.Node] = e.Error
	}
	for _, n := range st.Next {
		st.Tasks = append(st.Tasks, graph.TaskInfo{Node: n, Error: failed[n]})
	}
	for _, in := range pending.Interrupts {
		var v any
		if len(in.Value) > 0 {
			_ = json.Unmarshal(in.Value, &v) // a value that is not JSON shows as null
		}
		it := graph.Interruption{ID: in.ID, Node: in.Node, When: in.When, Value: v}
		st.Interrupts = append(st.Interrupts, it)
		for i := range st.Tasks {
			if st.Tasks[i].Node == in.Node {
				st.Tasks[i].Interrupts = append(st.Tasks[i].Interrupts, it)
			}
		}
	}
	return st, nil
}
