package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Interruption is a pause a run stopped at: a node's call to Interrupt, or a
// static interrupt before or after a node. A checkpoint stores it in the
// form of a checkpoint.Interrupt (the same JSON).
type Interruption struct {
	// ID identifies the interrupt, for ResumeByID.
	ID string `json:"id"`
	// Node is the node that paused (or that the run stopped before or
	// after).
	Node string `json:"node"`
	// When is "during" for Interrupt, "before" or "after" for static
	// interrupts.
	When string `json:"when"`
	// Value is the payload the node gave Interrupt. After a round trip
	// through a checkpoint (State, History, another process) it is the
	// payload decoded from JSON (a map, a slice, a float64...): read it
	// with Payload to get the type the node gave.
	Value any `json:"value,omitempty"`
	// Step and TaskID locate the task.
	Step   int    `json:"step"`
	TaskID string `json:"task_id,omitempty"`
	// Schema is the JSON Schema of the answer an Interrupt[T] expects,
	// derived from T (LangGraph's response_schema); nil when any answer
	// fits (T is an interface or json.RawMessage) and for static
	// interrupts. A resume value that does not fit it is refused with
	// ErrInvalidAnswer, naming the field.
	Schema json.RawMessage `json:"response_schema,omitempty"`
}

// Payload returns the interrupt's payload as a T, whether it is the value
// the node gave Interrupt (in the run that stopped) or its JSON form read
// back from a checkpoint. A payload that is not a T is an error naming the
// interrupt and its node.
func Payload[T any](in Interruption) (T, error) {
	if v, ok := in.Value.(T); ok {
		return v, nil
	}
	var v T
	data, err := json.Marshal(in.Value)
	if err == nil {
		err = json.Unmarshal(data, &v)
	}
	if err != nil {
		return v, fmt.Errorf("graph: payload of interrupt %q of node %q is not a %T: %w", in.ID, in.Node, v, err)
	}
	return v, nil
}

// ErrInterrupted matches every *InterruptError.
var ErrInterrupted = errors.New("graph: run interrupted")

// InterruptError is what Invoke returns when a run stopped at interrupts.
// The thread is resumable: call again with a zero input (and Resume or
// ResumeByID to answer Interrupt calls).
type InterruptError struct {
	Interrupts []Interruption
}

func (e *InterruptError) Error() string {
	parts := make([]string, len(e.Interrupts))
	for i, in := range e.Interrupts {
		parts[i] = fmt.Sprintf("%s node %q (step %d)", in.When, in.Node, in.Step)
	}
	return "graph: run interrupted: " + strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrInterrupted) true.
func (e *InterruptError) Is(target error) bool { return target == ErrInterrupted }

// errInterrupt is what Interrupt returns to unwind the node.
var errInterrupt = errors.New("graph: node paused for human input")

var interruptNS = uuid.MustParse("5b0f5c1e-8a43-4f5c-9d1e-6a7c1f0e2b3d")

// Interrupt stops the node for human input (LangGraph's interrupt). The first
// time, it records payload as a pending Interruption and returns an error the
// node must return; the run stops and the thread can be resumed. When the
// thread is resumed with Resume(v), the node runs again from its start and
// this call returns v, decoded into T. Several Interrupt calls in one node are
// matched to resume values by their order. It needs a checkpointer. The
// interrupt carries T's JSON Schema (Interruption.Schema), and a resume
// value that does not fit it is refused before the run starts
// (ErrInvalidAnswer).
func Interrupt[T any](ctx context.Context, payload any) (T, error) {
	var zero T
	sc := scopeOf(ctx)
	if sc == nil {
		return zero, errors.New("graph: Interrupt called outside a node")
	}
	h := sc.hitlOf()
	i := h.counter
	h.counter++
	if i < len(h.resume) {
		return convert[T](h.resume[i])
	}
	h.interrupts = append(h.interrupts, Interruption{
		ID:     interruptID(sc.taskID, i),
		Node:   sc.node,
		When:   "during",
		Value:  payload,
		Step:   sc.step,
		TaskID: sc.taskID,
		Schema: answerSchemaOf(reflect.TypeFor[T]()),
	})
	return zero, errInterrupt
}

func interruptID(taskID string, i int) string {
	return uuid.NewSHA1(interruptNS, []byte(taskID+"/"+strconv.Itoa(i))).String()
}

// convert gives a resume value the type the node asked for: as is when it
// has it, through JSON otherwise (a value read back from a checkpoint).
func convert[T any](v any) (T, error) {
	var out T
	raw, isRaw := v.(json.RawMessage) // an earlier answer, as stored
	if _, wantRaw := any(out).(json.RawMessage); !isRaw || wantRaw {
		if t, ok := v.(T); ok {
			return t, nil
		}
	}
	var data []byte
	var err error
	if isRaw {
		data = raw
	} else if data, err = json.Marshal(v); err != nil {
		return out, fmt.Errorf("graph: resume value %T: %w", v, err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return out, fmt.Errorf("graph: resume value does not fit %T: %w", out, err)
	}
	return out, nil
}

// whenBefore is the When of a stop at an interrupt-before breakpoint.
const whenBefore = "before"

func (r *run[S]) interruptsBefore() []Interruption {
	if len(r.c.interruptBefore) == 0 && len(r.o.interruptBefore) == 0 {
		return nil
	}
	var out []Interruption
	for _, t := range r.tasks {
		if r.c.interruptBefore[t.name] || contains(r.o.interruptBefore, t.name) {
			out = append(out, Interruption{ID: interruptID(t.id, -1), Node: t.name, When: whenBefore, Step: r.step, TaskID: t.id})
		}
	}
	return out
}

func (r *run[S]) interruptsAfter() []Interruption {
	if len(r.c.interruptAfter) == 0 && len(r.o.interruptAfter) == 0 {
		return nil
	}
	var out []Interruption
	for _, t := range r.tasks {
		if r.c.interruptAfter[t.name] || contains(r.o.interruptAfter, t.name) {
			out = append(out, Interruption{ID: interruptID(t.id, -2), Node: t.name, When: "after", Step: r.step - 1, TaskID: t.id})
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
