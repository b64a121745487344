// Package effect keeps a ledger of the calls a graph's nodes make to
// tools with side effects, so that a crash never makes an agent charge a
// card or send an e-mail twice.
//
// Every LangGraph-style runtime runs a node again after a crash, an error
// or an interrupt. A node that called a payment API may then call it
// again. With the ledger (Do, or a tool made with Wrap), each call is
// recorded before it starts and when it ends, as saved writes of the task
// the node runs as (through the graph's checkpointer, so on any saver and
// encrypted when the saver encrypts), keyed by the task's idempotency key
// (graph.Info.IdempotencyKey), the tool and its input. When the task runs
// again:
//
//   - a call that ended is answered from the ledger, not run again;
//   - a call that started and never ended is in doubt: the tool's
//     Reconcile hook (Reconciler) says whether it took effect, or, without
//     one, the node is interrupted with an InDoubt payload and a person
//     resumes it with a Decision: Confirm (with its result), Retry or Skip.
//
// Read-only and idempotent tools need no ledger: leave them unwrapped and
// they run again as before. Give a wrapped tool's outside system the
// call's key (Key(ctx)) as its idempotency key, so that a reconcile hook
// can look the call up.
//
// Rows a node writes to the checkpoint database itself need no ledger:
// graph.Transact commits them with the task's saved writes.
// docs/effects.md tells the whole story.
package effect
