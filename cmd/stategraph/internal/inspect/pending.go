package inspect

import (
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// Interrupt is a pending interrupt, as the runtime stores it in an
// InterruptChannel write: a node paused for human input.
type Interrupt struct {
	ID     string          `json:"id"`
	Node   string          `json:"node"`
	When   string          `json:"when"`
	Value  json.RawMessage `json:"value,omitempty"`
	Step   int             `json:"step"`
	TaskID string          `json:"task_id,omitempty"`
}

// TaskError is a task that failed, as the runtime stores it in an
// ErrorChannel write.
type TaskError struct {
	TaskID string `json:"task_id"`
	Node   string `json:"node"`
	Error  string `json:"error"`
}

// Pending returns the interrupts and task errors among a checkpoint's
// pending writes, in the order Get returns them (by task id).
func Pending(tup *checkpoint.Tuple) ([]Interrupt, []TaskError, error) {
	ints, errs := []Interrupt{}, []TaskError{}
	for _, w := range tup.PendingWrites {
		switch w.Channel {
		case checkpoint.InterruptChannel:
			var in []Interrupt
			if err := json.Unmarshal(w.Value, &in); err != nil {
				return nil, nil, fmt.Errorf("checkpoint %q: interrupt of task %q: %w: %w", tup.Config.CheckpointID, w.TaskID, checkpoint.ErrCorrupt, err)
			}
			ints = append(ints, in...)
		case checkpoint.ErrorChannel:
			te := TaskError{TaskID: w.TaskID}
			if err := json.Unmarshal(w.Value, &te); err != nil || te.Error == "" {
				te.Error = string(w.Value)
			}
			te.TaskID = w.TaskID
			errs = append(errs, te)
		}
	}
	return ints, errs, nil
}
