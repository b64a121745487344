// Package checkpoint defines how a graph's state is persisted: the Saver
// interface that storage backends implement, the Checkpoint, Metadata and
// Tuple types they store, checkpoint ids that sort by time, and the
// Serializer that turns channel values into bytes.
//
// A checkpoint is written after every superstep of a run. It records, for
// each channel (state field) that has a value, the version of that value.
// Only values whose version is new are handed to the backend, so a channel
// that did not change is never written twice. Append-only channels may be
// stored as deltas: a Blob whose Delta flag is set holds only the elements
// appended since its Base version, and Get rebuilds the value as the newest
// full snapshot followed by the deltas after it, oldest first.
//
// Backends know nothing of graphs: they store channels, versions, blobs
// and pending writes as opaque bytes. They live in sub-packages (memory,
// sqlite, postgres), import only this package, and pass the conformance
// suite in checkpointtest. What the graph runtime puts in those bytes —
// its reserved channels, the schedule of the next step, task ids and the
// rule that says which tasks finished — is defined here too (format.go,
// schedule.go), once, for the runtime and for every tool that reads a
// database (the stategraph inspector).
//
// One writer per thread: Put is a compare-and-set on the thread's head. A
// put whose ExpectHead is not the current head of its thread and namespace
// fails with ErrConflict and stores nothing. A saver that is a Leaser also
// keeps a lease per thread (lease.go), which the runtime takes before a
// run stores anything, so a second run is refused (ErrBusy, naming the
// holder) before it runs.
//
// A saver that is a HeadGetter (head.go) reads a checkpoint without its
// fields' values: the runtime's State reads the latest checkpoint so, and
// when the process holds that checkpoint's decoded state, it reads no
// value at all.
package checkpoint
