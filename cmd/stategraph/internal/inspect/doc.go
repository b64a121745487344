// Package inspect reads what the graph runtime stores in a checkpoint,
// without the user's state type: field values as JSON (append fields
// rebuilt from their snapshot and deltas), the schedule of the next step
// (the reserved channel "__next__"), the interrupts and task errors among
// the pending writes, and from these a thread's status, the difference
// between two checkpoints and the path a thread took, drawn as Mermaid.
//
// It depends only on the checkpoint package and on the runtime's storage
// conventions (see graph/persist.go), so it works on any checkpoint
// database, whatever program wrote it.
package inspect
