// Package inspect reads what the graph runtime stores in a checkpoint,
// without the user's state type: field values as JSON (append fields
// rebuilt from their snapshot and deltas), the schedule of the next step
// (checkpoint.NextChannel), the interrupts and task errors among
// the pending writes, and from these a thread's status, the difference
// between two checkpoints and the path a thread took, drawn as Mermaid.
//
// It depends only on the checkpoint package, which defines the runtime's
// on-disk format (checkpoint/format.go, checkpoint/schedule.go), so it
// works on any checkpoint database, whatever program wrote it.
package inspect
