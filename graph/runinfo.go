package graph

import (
	"context"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
)

// Info describes the task a node's body runs as: where it runs (thread,
// namespace, checkpoint, step), which task it is (task id, node), which
// try (attempt) and which call (run id). It is LangGraph's config and
// runtime of a node (thread_id, checkpoint_ns, langgraph_step,
// langgraph_node, the task id), read with RunInfo.
type Info struct {
	// ThreadID is the run's thread ("" without a checkpointer and thread).
	ThreadID string
	// Namespace is the checkpoint namespace: "" for the graph itself,
	// "node:taskid" for a subgraph (parent namespaces first, separated by
	// "|").
	Namespace string
	// CheckpointID is the checkpoint the task's step runs after: the one
	// its writes are saved against ("" without a checkpointer).
	CheckpointID string
	// Step is the step the task runs in (the first node runs in step 1).
	Step int
	// TaskID is the task's id, derived from the checkpoint, namespace,
	// step, node and Send position: the same when the task runs again
	// after a crash, an error or an interrupt ("" without a checkpointer).
	TaskID string
	// Node is the node the task runs.
	Node string
	// Send is the task's position among its step's Sends, or -1 for a
	// task its edges triggered.
	Send int
	// Attempt counts the tries of the node within this call, from 1: a
	// retry of WithRetry adds one. A task run again by a later call (a
	// resume) starts at 1 again.
	Attempt int
	// RunID is the id of the call running the task (WithRunID, or a new
	// UUIDv7); a subgraph's task has its parent run's.
	RunID string
	// IdempotencyKey is a key for the task's external effects: the same
	// every time this task runs (retries, a resume after a crash, an error
	// or an interrupt), different for every other task, step, namespace
	// and thread. It is derived from the thread, namespace, checkpoint and
	// task id; without a checkpointer, from the run id, namespace, step,
	// node and Send position (nothing can re-run the task then but a
	// retry). A replay from a past checkpoint (a fork) runs new tasks with
	// new keys.
	IdempotencyKey string
}

// RunInfo returns the Info of the task whose node is running in ctx, and
// false outside a node. It is safe to call from goroutines the node starts.
func RunInfo(ctx context.Context) (Info, bool) {
	sc := scopeOf(ctx)
	if sc == nil {
		return Info{}, false
	}
	in := sc.info()
	in.IdempotencyKey = idempotencyKey(&in)
	return in, true
}

// info is the task's Info without its IdempotencyKey, which costs a hash.
func (sc *taskScope) info() Info {
	in := Info{
		Namespace:    sc.namespace(),
		CheckpointID: sc.checkpointID,
		Step:         sc.step,
		TaskID:       sc.taskID,
		Node:         sc.node,
		Send:         int(sc.sendIdx),
		Attempt:      1,
	}
	if e := sc.ext.Load(); e != nil && e.attempt.Load() > 1 {
		in.Attempt = int(e.attempt.Load())
	}
	if p := sc.parent; p != nil {
		in.ThreadID, in.RunID = p.thread, p.runID
	}
	return in
}

// idempotencyKey derives Info.IdempotencyKey.
func idempotencyKey(in *Info) string {
	if in.TaskID != "" {
		return checkpoint.DeriveID("idempotency", in.ThreadID, in.Namespace, in.CheckpointID, in.TaskID)
	}
	return checkpoint.DeriveID("idempotency", "run", in.RunID, in.Namespace, strconv.Itoa(in.Step), in.Node, strconv.Itoa(in.Send))
}
