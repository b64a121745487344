package checkpoint

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The on-disk format of the graph runtime, beside the schema's own fields:
// the reserved channels it stores, the special indices of its pending
// writes, the ids of its tasks and the rule that says which of them
// finished. The runtime (package graph) writes it and every reader (the
// stategraph inspector) reads it through these names, so the bytes a
// backend stores are defined once. Nothing here may change meaning: old
// databases must read the same.

// Reserved channels. A channel whose name starts and ends with "__" is
// never a state field (see IsReserved).
const (
	// NextChannel is a checkpoint value: the schedule of the next step,
	// a Schedule encoded by AppendSchedule.
	NextChannel = "__next__"
	// GotoChannel is a pending write: the JSON list of nodes a task's
	// update went to (state.Update.Goto).
	GotoChannel = "__goto__"
	// SendChannel is a pending write: one Send of a task's update, a
	// ScheduledSend as JSON.
	SendChannel = "__send__"
	// DoneChannel is a pending write whose value is DoneValue: it marks a
	// task that finished writing nothing, so that it is not run again.
	DoneChannel = "__done__"
	// ErrorChannel is a pending write at ErrorIndex: the error a task
	// failed with (a JSON-encoded TaskError).
	ErrorChannel = "__error__"
	// InterruptChannel is a pending write at InterruptIndex: the JSON
	// list of the interrupts a task raised.
	InterruptChannel = "__interrupt__"
	// ResumeChannel is a pending write at ResumeIndex: the JSON list of
	// the values a task was resumed with.
	ResumeChannel = "__resume__"
	// StartChannel is a checkpoint value of an input checkpoint (source
	// SourceInput): the run's input, stored in the checkpoint's own
	// commit as LangGraph keeps it in its __start__ channel. It is the
	// JSON list of the writes of the step's Start task, as
	// AppendStartWrites encodes them and StartWrites reads them. Input
	// checkpoints stored before it existed hold their input as the
	// pending writes of that task instead.
	StartChannel = "__start__"
)

// Indices of the special pending writes. They are negative, so a saver
// replaces them when the task writes them again, while a task's ordinary
// writes have indices 0, 1, 2...
const (
	// ErrorIndex is the index of an ErrorChannel write.
	ErrorIndex = -1
	// InterruptIndex is the index of an InterruptChannel write.
	InterruptIndex = -3
	// ResumeIndex is the index of a ResumeChannel write.
	ResumeIndex = -4
)

// DoneValue is the value of a DoneChannel write.
const DoneValue = "true"

// IsReserved reports whether name is a reserved channel of the runtime
// rather than a state field: it starts and ends with "__".
func IsReserved(name string) bool {
	return len(name) > 4 && name[:2] == "__" && name[len(name)-2:] == "__"
}

// AppendStartWrites appends the StartChannel value of ws, the writes of
// an input checkpoint's Start task, to dst and returns it: a JSON list
// with one element per write, in order. A write whose value is JSON (as
// the JSON serializer's are) and whose index is its position is the pair
// [channel, value], the value as it is; any other write is the
// PendingWrite object, its value base64 ({"task_id":"","idx":…,
// "channel":…,"value":…}, the only form before the pairs, which
// StartWrites still reads). The pair stores a human message as itself
// rather than a third larger and again in an object.
func AppendStartWrites(dst []byte, ws []PendingWrite) ([]byte, error) {
	dst = append(dst, '[')
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ',')
		}
		if w.Index == i && rawJSON(w.Value) && utf8.ValidString(w.Channel) {
			ch, err := json.Marshal(w.Channel)
			if err != nil {
				return dst, err
			}
			dst = append(append(append(append(dst, '['), ch...), ','), w.Value...)
			dst = append(dst, ']')
			continue
		}
		w.TaskID = ""
		obj, err := json.Marshal(w)
		if err != nil {
			return dst, err
		}
		dst = append(dst, obj...)
	}
	return append(dst, ']'), nil
}

// rawJSON reports whether data can be stored as itself inside a JSON
// document and read back byte for byte: one valid JSON value, with no
// space around it (a decoder drops that).
func rawJSON(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	switch data[0] {
	case ' ', '\t', '\n', '\r':
		return false
	}
	switch data[len(data)-1] {
	case ' ', '\t', '\n', '\r':
		return false
	}
	return json.Valid(data)
}

// StartWrites decodes a StartChannel value (either form AppendStartWrites
// describes) into the pending writes of the Start task it belongs to,
// taskID (TaskID(checkpoint, namespace, step+1, "__start__", -1) of the
// input checkpoint at step).
func StartWrites(data []byte, taskID string) ([]PendingWrite, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, err
	}
	ws := make([]PendingWrite, len(elems))
	for i, e := range elems {
		if len(e) > 0 && e[0] == '[' {
			var pair []json.RawMessage
			if err := json.Unmarshal(e, &pair); err != nil {
				return nil, fmt.Errorf("write %d: %w", i, err)
			}
			if len(pair) != 2 {
				return nil, fmt.Errorf("write %d: %d elements, want [channel, value]", i, len(pair))
			}
			if err := json.Unmarshal(pair[0], &ws[i].Channel); err != nil {
				return nil, fmt.Errorf("write %d: channel: %w", i, err)
			}
			ws[i].Index, ws[i].Value = i, pair[1]
		} else if err := json.Unmarshal(e, &ws[i]); err != nil {
			return nil, fmt.Errorf("write %d: %w", i, err)
		}
		ws[i].TaskID = taskID
	}
	return ws, nil
}

// Interrupt is one interrupt as an InterruptChannel write stores it (the
// write's value is a JSON list of them): the form of graph.Interruption
// on disk, with its payload as JSON.
type Interrupt struct {
	ID     string          `json:"id"`
	Node   string          `json:"node"`
	When   string          `json:"when"`
	Value  json.RawMessage `json:"value,omitempty"`
	Step   int             `json:"step"`
	TaskID string          `json:"task_id,omitempty"`
	// ResponseSchema is the JSON Schema of the answer the interrupt
	// expects, when it declared one.
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
}

// TaskError is the value of an ErrorChannel write.
type TaskError struct {
	Node  string `json:"node"`
	Error string `json:"error"`
}

// TaskID is the id the runtime gives a task of a step: derived from the
// checkpoint that holds the task (the one the step runs after), the
// namespace, the step number (the checkpoint's Metadata.Step + 1), the node
// and, for a task made by a Send, its position among the step's Sends (send
// is negative for a task made by an edge). A checkpoint's pending writes
// carry these ids, so a reader can tell which scheduled tasks finished.
func TaskID(checkpointID, namespace string, step int, node string, send int) string {
	var num [20]byte
	st := strconv.AppendInt(num[:0], int64(step), 10)
	if send >= 0 {
		var idx [20]byte
		return DeriveID(checkpointID, namespace, string(st), node, "send", string(strconv.AppendInt(idx[:0], int64(send), 10)))
	}
	return DeriveID(checkpointID, namespace, string(st), node)
}

// FinishedTasks returns the ids of the tasks that finished among a
// checkpoint's pending writes: those with a write at index 0 or more. A
// task that failed or was interrupted and then finished on a resume also
// keeps its earlier error or interrupt write (negative index); it finished
// all the same, and does not run again.
func FinishedTasks(writes []PendingWrite) map[string]bool {
	finished := map[string]bool{}
	for _, w := range writes {
		if w.Index >= 0 {
			finished[w.TaskID] = true
		}
	}
	return finished
}
