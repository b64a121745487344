package effect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// Call is one call of a side-effecting tool, as the ledger records it and
// as an in-doubt interrupt shows it.
type Call struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// CallID is the model's id of the tool call (tool_call_id) when the
	// call runs in a chat tool node (WithCallID), else empty.
	CallID string `json:"call_id,omitempty"`
	// Input is the tool's input, as the agent gave it.
	Input string `json:"input"`
	// Key is the call's idempotency key: derived from the task's
	// graph.Info.IdempotencyKey, the tool call's id (CallID), the tool and
	// a hash of the input, so the
	// same every time this call of this task runs. Give it to the outside
	// system (a payment API's idempotency key, a message id), so that a
	// reconcile hook can look the call up by it.
	Key string `json:"key"`
	// Node and Step are where the call runs; Thread is the run's thread.
	Node   string `json:"node,omitempty"`
	Step   int    `json:"step,omitempty"`
	Thread string `json:"thread,omitempty"`
	// Started is when the call was recorded as started (zero for a call
	// without a recorded start).
	Started time.Time `json:"started,omitzero"`
}

// Outcome is what a reconcile hook found out about an in-doubt call.
type Outcome struct {
	// Applied reports that the call took effect; Result is then its
	// result, which the ledger records as the call's end. A call that did
	// not take effect is run again.
	Applied bool
	Result  string
}

// Reconciler is implemented by a tool (or given with WithReconcile) that
// can find out whether an in-doubt call took effect, usually by looking
// it up by Call.Key in the outside system.
type Reconciler interface {
	Reconcile(ctx context.Context, call Call) (Outcome, error)
}

// ReconcileFunc adapts a function to a Reconciler.
type ReconcileFunc func(ctx context.Context, call Call) (Outcome, error)

// Reconcile calls f.
func (f ReconcileFunc) Reconcile(ctx context.Context, call Call) (Outcome, error) {
	return f(ctx, call)
}

// Action is a person's answer to an in-doubt call.
type Action string

// The answers to an in-doubt call.
const (
	// Confirm: the call took effect; Decision.Result is its result.
	Confirm Action = "confirm"
	// Retry: the call did not take effect; run it again.
	Retry Action = "retry"
	// Skip: do not run it; Decision.Result (or a sentence saying it was
	// skipped) is given to the agent as its result.
	Skip Action = "skip"
)

// Decision is the resume value of an in-doubt interrupt
// (graph.Resume(effect.Decision{...})).
type Decision struct {
	Action Action `json:"action"`
	Result string `json:"result,omitempty"`
}

// InDoubtKind is InDoubt.Kind, by which a front end recognizes the
// interrupt.
const InDoubtKind = "effect.in_doubt"

// InDoubt is the payload of the interrupt a call without a reconcile hook
// raises when it is in doubt: it started and never ended.
type InDoubt struct {
	Kind     string `json:"kind"`
	Call     Call   `json:"call"`
	Question string `json:"question"`
}

// ErrInTransaction is wrapped by the error of a ledger call made inside
// graph.Transact's function: its records would wait for the transaction's
// own write lock. Call the tool before or after Transact.
var ErrInTransaction = errors.New("effect: a ledger call inside graph.Transact")

// ErrInDoubt is wrapped by the error of a ledger call that started and
// did not end: the tool failed (a failure may have taken effect), its
// reconcile hook failed, or its end could not be recorded. Such an error
// must fail the node, not become an answer a model may retry with a new
// call: the task's next run finds the call in doubt and asks the reconcile
// hook or a person (chat/toolnode lets it through its error handler).
var ErrInDoubt = errors.New("effect: the call is in doubt")

// ErrAction is wrapped by the error of a call resumed with a Decision
// whose Action is none of Confirm, Retry and Skip.
var ErrAction = errors.New("effect: unknown action")

// startRecord is the ledger's record of a started call.
type startRecord struct {
	Tool    string    `json:"tool"`
	Input   string    `json:"input_sha256"`
	Key     string    `json:"key"`
	Started time.Time `json:"started"`
}

// Do runs call, a side-effecting call of the tool named tool with input,
// through the ledger of the task the node runs as. It records the call
// as started (a saved write of the task, so through the graph's saver and
// encrypted when the saver is) before running it, and records its result
// when it returns. When the task runs again (a retry, a resume after a
// crash, an error or an interrupt):
//   - a call that ended is answered from the ledger and not run again;
//   - a call that started and never ended is in doubt: rec, when not nil,
//     is asked whether it took effect (an applied call's result is
//     recorded, one that did not take effect runs again); without rec the
//     node is interrupted with an InDoubt payload, and a person resumes it
//     with a Decision (confirm with a result, retry, or skip).
//
// An error of call is returned (wrapping ErrInDoubt) and its end is not
// recorded, so the call stays in doubt: a failure may have taken effect (a timeout after the
// payment went through). The same tool with the same input in one task
// is one effect, answered once.
//
// The ledger needs the run's records to be saved at once: a graph
// compiled WithCheckpointer under DurabilitySync (the default) or
// DurabilityAsync. Under DurabilityExit nothing is saved until the run
// ends, so a crash loses the start record; without a checkpointer, or
// outside a node, call simply runs. It must not run inside graph.Transact.
func Do(ctx context.Context, tool, input string, rec Reconciler, call func(ctx context.Context) (string, error)) (string, error) {
	info, ok := graph.RunInfo(ctx)
	if !ok {
		return call(ctx)
	}
	if _, inTx := graph.Tx[any](ctx); inTx {
		return "", fmt.Errorf("%w: tool %q in node %q", ErrInTransaction, tool, info.Node)
	}
	sum := sha256.Sum256([]byte(input))
	inputHash := hex.EncodeToString(sum[:])
	callID, _ := ctx.Value(callIDKey{}).(string)
	c := Call{
		Tool: tool, CallID: callID, Input: input, Node: info.Node, Step: info.Step, Thread: info.ThreadID,
		Key: checkpoint.DeriveID("effect", info.IdempotencyKey, callID, tool, inputHash),
	}
	ctx = context.WithValue(ctx, keyKey{}, c.Key)
	name := tool + "/" + inputHash
	if callID != "" {
		name = tool + "/" + callID + "/" + inputHash
	}
	fresh := false
	start, err := graph.Durable(ctx, "effect/start/"+name, func(context.Context) (startRecord, error) {
		fresh = true
		return startRecord{Tool: tool, Input: inputHash, Key: c.Key, Started: time.Now().UTC()}, nil
	})
	if err != nil {
		return "", fmt.Errorf("effect: record the start of %s: %w", describe(c), err)
	}
	c.Started = start.Started
	out, err := graph.Durable(ctx, "effect/end/"+name, func(ctx context.Context) (string, error) {
		if fresh {
			return call(ctx)
		}
		return inDoubt(ctx, c, rec, call)
	})
	if err != nil && !errors.Is(err, graph.ErrInterrupted) {
		return out, fmt.Errorf("%w: %s: %w", ErrInDoubt, describe(c), err)
	}
	return out, err
}

// inDoubt settles a call that started and never ended.
func inDoubt(ctx context.Context, c Call, rec Reconciler, call func(ctx context.Context) (string, error)) (string, error) {
	if rec != nil {
		out, err := rec.Reconcile(ctx, c)
		if err != nil {
			return "", fmt.Errorf("effect: reconcile %s: %w", describe(c), err)
		}
		if out.Applied {
			return out.Result, nil
		}
		return call(ctx)
	}
	d, err := graph.Interrupt[Decision](ctx, InDoubt{
		Kind: InDoubtKind, Call: c,
		Question: fmt.Sprintf("The call of %s started at %s and never ended: did it take effect? Answer confirm (with its result), retry or skip.", describe(c), c.Started.Format(time.RFC3339)),
	})
	if err != nil {
		return "", err
	}
	switch d.Action {
	case Confirm:
		return d.Result, nil
	case Retry:
		return call(ctx)
	case Skip:
		if d.Result == "" {
			return fmt.Sprintf("The call of tool %s was skipped by a person: it did not run.", c.Tool), nil
		}
		return d.Result, nil
	}
	return "", fmt.Errorf("%w %q for %s (want %q, %q or %q)", ErrAction, d.Action, describe(c), Confirm, Retry, Skip)
}

func describe(c Call) string {
	return fmt.Sprintf("tool %q (key %s)", c.Tool, c.Key)
}

type keyKey struct{}

type callIDKey struct{}

// WithCallID returns ctx for a ledger call made as the model's tool call
// id (its tool_call_id): Do records it in Call.CallID and keys the call by
// it as well as by the task, so two calls of one tool with the same input
// in one AI message are two effects. chat/toolnode sets it for every call.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// Key returns the idempotency key of the ledger call running in ctx
// (Call.Key), for a tool to give the outside system, and false outside
// one.
func Key(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(keyKey{}).(string)
	return k, ok
}
