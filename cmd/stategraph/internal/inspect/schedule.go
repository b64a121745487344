package inspect

import (
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// Schedule is what a checkpoint says runs in the next step (the value of
// checkpoint.NextChannel, a checkpoint.Schedule), as the inspector shows
// it: each Send's input as JSON.
type Schedule struct {
	// Nodes are the nodes scheduled by edges.
	Nodes []string `json:"nodes"`
	// Sends are the tasks scheduled by Send, each with its own input.
	Sends []Send `json:"sends,omitempty"`
	// Joins maps a join ("a,b>c") to the sources that have finished.
	Joins map[string][]string `json:"joins,omitempty"`
}

// Send is one task scheduled by Send: its node and its input, field by
// field, as JSON.
type Send struct {
	Node string                     `json:"node"`
	Arg  map[string]json.RawMessage `json:"arg,omitempty"`
}

// Next returns the tasks of the next step by node, one per task: the
// nodes scheduled by edges, then the node of each Send (a node sent three
// inputs appears three times).
func (s Schedule) Next() []string {
	out := make([]string, 0, len(s.Nodes)+len(s.Sends))
	out = append(out, s.Nodes...)
	for _, snd := range s.Sends {
		out = append(out, snd.Node)
	}
	return out
}

// Unfinished returns the tasks of the next step that still have to run,
// by node, one per task: Next without the tasks whose writes tup already
// holds (a step stopped by an error, an interrupt or Ctrl-C after some of
// its tasks finished). Tasks are recognised by the ids the runtime gives
// them (checkpoint.TaskID), as State's Next does.
func (s Schedule) Unfinished(tup *checkpoint.Tuple) []string {
	finished := checkpoint.FinishedTasks(tup.PendingWrites)
	if len(finished) == 0 {
		return s.Next()
	}
	cp, ns, step := tup.Config.CheckpointID, tup.Config.Namespace, tup.Metadata.Step+1
	out := make([]string, 0, len(s.Nodes)+len(s.Sends))
	for _, n := range s.Nodes {
		// The input of an input checkpoint is its __start__ task's writes:
		// it is still to be applied.
		if n == startNode || !finished[checkpoint.TaskID(cp, ns, step, n, -1)] {
			out = append(out, n)
		}
	}
	for i, snd := range s.Sends {
		if !finished[checkpoint.TaskID(cp, ns, step, snd.Node, i)] {
			out = append(out, snd.Node)
		}
	}
	return out
}

// startNode is the runtime's Start (graph.Start): an input checkpoint
// schedules it, with the input as its task's writes.
const startNode = "__start__"

// Done reports whether nothing is scheduled: the thread finished.
func (s Schedule) Done() bool { return len(s.Nodes) == 0 && len(s.Sends) == 0 }

// ParseSchedule decodes the schedule of a checkpoint read with Get (see
// checkpoint.ParseSchedule), with each Send's input as canonical JSON. A
// checkpoint without the channel has an empty schedule.
func ParseSchedule(tup *checkpoint.Tuple) (Schedule, error) {
	out := Schedule{Nodes: []string{}}
	v, ok := tup.Checkpoint.Values[checkpoint.NextChannel]
	if !ok || len(v.Snapshot) == 0 {
		return out, nil
	}
	raw, err := checkpoint.ParseSchedule(v.Snapshot)
	if err != nil {
		return out, fmt.Errorf("checkpoint %q: schedule %s: %w: %w", tup.Config.CheckpointID, checkpoint.NextChannel, checkpoint.ErrCorrupt, err)
	}
	if raw.Nodes != nil {
		out.Nodes = raw.Nodes
	}
	out.Joins = raw.Joins
	for _, s := range raw.Sends {
		snd := Send{Node: s.Node}
		if len(s.Arg) > 0 {
			snd.Arg = make(map[string]json.RawMessage, len(s.Arg))
			for field, data := range s.Arg {
				if json.Valid(data) {
					snd.Arg[field] = canonical(data)
				} else {
					snd.Arg[field] = opaque(data)
				}
			}
		}
		out.Sends = append(out.Sends, snd)
	}
	return out, nil
}
