package graph

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// RecordChannel is the channel of the pending writes Record saves. Like
// every name starting and ending with "__", it is never a state field.
const RecordChannel = "__record__"

// Record indices sit below Durable's (see durable.go), one per Record
// call of a task in a process, from recordIndexBase down; they stay within
// int32, as every saver stores an index.
const (
	recordIndexBase = durableIndexBase + durableIndexSpan
	recordIndexSpan = 1 << 29
)

// Record saves data as a record of the task the node runs as: a pending
// write on RecordChannel, stored at once through the graph's checkpointer
// (and so encrypted when it encrypts), with the thread. The runtime never
// reads it back; package replay stores the model and tool calls of a run
// with it. Records of a task are numbered by call, from 0 in each process
// that runs the task: a task run again (a resume) writes its records over
// those of the earlier run at the same numbers, so a record says which run
// and attempt made it.
//
// Without a checkpointer, outside a node, or under DurabilityExit (which
// stores nothing until the run ends), Record saves nothing and returns
// false.
func Record(ctx context.Context, data []byte) (bool, error) {
	sc := scopeOf(ctx)
	if sc == nil || sc.parent == nil || sc.parent.store == nil || sc.taskID == "" {
		return false, nil
	}
	rs, ok := sc.parent.store.(recordStore)
	if !ok {
		return false, nil
	}
	n := sc.extOf().records.Add(1) - 1
	if n >= recordIndexSpan {
		return false, fmt.Errorf("graph: node %q, step %d: more than %d records in one task", sc.node, sc.step, recordIndexSpan)
	}
	w := checkpoint.PendingWrite{TaskID: sc.taskID, Index: -(recordIndexBase + int(n)), Channel: RecordChannel, Value: data}
	saved, err := rs.putRecord(sc.taskID, w)
	if err != nil {
		return false, fmt.Errorf("graph: node %q, step %d: save record %d: %w", sc.node, sc.step, n, err)
	}
	return saved, nil
}

// recordStore saves a task's records: the run's persist.
type recordStore interface {
	putRecord(taskID string, w checkpoint.PendingWrite) (bool, error)
}

func (p *persist[S]) putRecord(taskID string, w checkpoint.PendingWrite) (bool, error) {
	if p.id == "" || p.dry || p.unsaved || p.r.durability == DurabilityExit {
		return false, nil
	}
	return true, p.putWrites(taskID, []checkpoint.PendingWrite{w})
}
