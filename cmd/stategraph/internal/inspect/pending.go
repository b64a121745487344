package inspect

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Interrupt is a pending interrupt, as the runtime stores it in an
// InterruptChannel write: a node paused for human input.
type Interrupt = checkpoint.Interrupt

// TaskError is a task that failed: the checkpoint.TaskError the runtime
// stores in an ErrorChannel write, with the id of the task that wrote it.
type TaskError struct {
	TaskID string `json:"task_id"`
	Node   string `json:"node"`
	Error  string `json:"error"`
}

// Cancelled reports whether the task was stopped by a cancellation
// rather than failed: its error ends with "context canceled", the text
// of context.Canceled. The runtime no longer records a task that its
// run's cancellation stopped (Ctrl-C), but databases written by older
// versions hold such errors. Either way the task runs again on resume,
// so the thread is pending, not failed.
func (e TaskError) Cancelled() bool {
	return strings.HasSuffix(strings.TrimSpace(e.Error), "context canceled")
}

// Tasks is what the pending writes of a checkpoint say about the tasks
// of its next step, in the order Get returns the writes (by task id).
type Tasks struct {
	// Interrupts are the pending interrupts.
	Interrupts []Interrupt
	// Errors are the tasks that failed.
	Errors []TaskError
	// Cancelled are the tasks a cancellation stopped, as older versions
	// recorded them (see TaskError.Cancelled).
	Cancelled []TaskError
}

// Pending reads the interrupts and task errors among a checkpoint's
// pending writes. The slices are empty, never nil. As in the runtime, a
// task that has successful writes (index 0 or more) finished: its earlier
// error or interrupt writes are left out.
func Pending(tup *checkpoint.Tuple) (Tasks, error) {
	out := Tasks{Interrupts: []Interrupt{}, Errors: []TaskError{}, Cancelled: []TaskError{}}
	finished := checkpoint.FinishedTasks(tup.PendingWrites)
	for _, w := range tup.PendingWrites {
		if finished[w.TaskID] {
			continue
		}
		switch w.Channel {
		case checkpoint.InterruptChannel:
			var in []Interrupt
			if err := json.Unmarshal(w.Value, &in); err != nil {
				return Tasks{}, fmt.Errorf("checkpoint %q: interrupt of task %q: %w: %w", tup.Config.CheckpointID, w.TaskID, checkpoint.ErrCorrupt, err)
			}
			out.Interrupts = append(out.Interrupts, in...)
		case checkpoint.ErrorChannel:
			var stored checkpoint.TaskError
			te := TaskError{TaskID: w.TaskID}
			if err := json.Unmarshal(w.Value, &stored); err != nil || stored.Error == "" {
				te.Error = string(w.Value)
			} else {
				te.Node, te.Error = stored.Node, stored.Error
			}
			if te.Cancelled() {
				out.Cancelled = append(out.Cancelled, te)
			} else {
				out.Errors = append(out.Errors, te)
			}
		}
	}
	return out, nil
}
