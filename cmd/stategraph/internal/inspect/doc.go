// Package inspect reads what the graph runtime stores in a checkpoint,
// without the user's state type: field values as JSON (append fields
// rebuilt from their snapshot and deltas), the schedule of the next step
// (checkpoint.NextChannel), the interrupts and task errors among
// the pending writes, and from these a thread's status, the difference
// between two checkpoints (field by field, and leaf by leaf inside
// objects and arrays) and the path a thread took, drawn as Mermaid. A
// field path (plan.steps.0.status, see ParsePath) names one value inside
// the state: Diff reports changes by path, and Select reads one.
//
// It depends only on the checkpoint package, which defines the runtime's
// on-disk format (checkpoint/format.go, checkpoint/schedule.go), so it
// works on any checkpoint database, whatever program wrote it.
package inspect
