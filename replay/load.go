package replay

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// Recording is the calls recorded with a thread, in the order of their
// steps, then tasks (node, then Send position), then calls.
type Recording struct {
	Thread string
	Calls  []Call
}

// Load reads the recording of thread from saver: the records the Model
// and Tool wrappers saved with the thread's root namespace. Of the
// records of a task run more than once (a resume, a retry), those of its
// last run and try are kept. A record that does not decode is an error
// wrapping checkpoint.ErrCorrupt, naming the checkpoint and task.
func Load(ctx context.Context, saver checkpoint.Saver, thread string) (*Recording, error) {
	rec := &Recording{Thread: thread}
	found := false
	for tup, err := range saver.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		if err != nil {
			return nil, fmt.Errorf("replay: read thread %q: %w", thread, err)
		}
		found = true
		byTask := map[string][]checkpoint.PendingWrite{}
		for _, w := range tup.PendingWrites {
			if w.Channel == graph.RecordChannel {
				byTask[w.TaskID] = append(byTask[w.TaskID], w)
			}
		}
		for task, ws := range byTask {
			// Indices go down from the first record: the greatest is the
			// first call.
			slices.SortFunc(ws, func(a, b checkpoint.PendingWrite) int { return cmp.Compare(b.Index, a.Index) })
			calls := make([]Call, 0, len(ws))
			for _, w := range ws {
				var c Call
				if err := json.Unmarshal(w.Value, &c); err != nil {
					return nil, fmt.Errorf("replay: thread %q checkpoint %s task %s: record %d: %w: %w", thread, tup.Config.CheckpointID, task, w.Index, checkpoint.ErrCorrupt, err)
				}
				calls = append(calls, c)
			}
			rec.Calls = append(rec.Calls, latest(calls)...)
		}
	}
	if !found {
		return nil, fmt.Errorf("replay: thread %q: %w", thread, checkpoint.ErrNotFound)
	}
	slices.SortStableFunc(rec.Calls, func(a, b Call) int {
		return cmp.Or(cmp.Compare(a.Step, b.Step), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Send, b.Send), cmp.Compare(a.Seq, b.Seq))
	})
	return rec, nil
}

// latest keeps the calls of the last run and try of a task, numbered.
func latest(calls []Call) []Call {
	run, try := "", 0
	for _, c := range calls {
		if c.RunID > run || (c.RunID == run && c.Attempt > try) {
			run, try = c.RunID, c.Attempt
		}
	}
	out := calls[:0]
	for _, c := range calls {
		if c.RunID == run && c.Attempt == try {
			c.Seq = len(out)
			out = append(out, c)
		}
	}
	return out
}
