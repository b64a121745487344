package checkpoint

import (
	"context"
	"errors"
	"iter"
	"time"
)

// Errors returned by every Saver. Check them with errors.Is. Their
// messages name the thread (and the checkpoint, where there is one).
var (
	// ErrNotFound: no checkpoint matches the config (unknown thread,
	// namespace or checkpoint id).
	ErrNotFound = errors.New("checkpoint: not found")
	// ErrConflict: the thread's head moved under a writer; another run
	// advanced the thread since this one last saw it.
	ErrConflict = errors.New("checkpoint: conflict: thread head moved")
	// ErrCorrupt: a stored checkpoint, blob or write could not be decoded.
	ErrCorrupt = errors.New("checkpoint: corrupt data")
)

// Config addresses a thread, a namespace within it (subgraphs checkpoint
// under their own namespace; the root graph uses ""), and optionally one
// checkpoint of it. An empty CheckpointID means the latest.
type Config struct {
	ThreadID     string `json:"thread_id"`
	Namespace    string `json:"checkpoint_ns,omitempty"`
	CheckpointID string `json:"checkpoint_id,omitempty"`
}

// Blob is one stored version of a channel's value.
type Blob struct {
	// Version is the version this blob holds. Empty means the
	// checkpoint's version of the blob's channel (Checkpoint.Versions);
	// Put refuses a blob with neither.
	Version string `json:"version"`
	// Data is the serialized value, or with Delta the serialized elements
	// appended since Base.
	Data []byte `json:"data"`
	// Delta marks Data as the elements appended since Base rather than
	// the whole value.
	Delta bool `json:"delta,omitempty"`
	// Base is the version this delta extends (set only with Delta). A
	// delta with an empty Base extends the empty value.
	Base string `json:"base,omitempty"`
}

// Value is a channel's value as Get returns it: the newest full snapshot
// (Snapshot) followed by the deltas written after it, oldest first. A
// channel never written as a delta has no Deltas.
type Value struct {
	Version  string   `json:"version"`
	Snapshot []byte   `json:"snapshot"`
	Deltas   [][]byte `json:"deltas,omitempty"`
}

// Checkpoint is the persisted state of a thread after one step.
type Checkpoint struct {
	// ID is a time-ordered UUIDv7 (see NewID).
	ID string `json:"id"`
	// CreatedAt is when the checkpoint was made.
	CreatedAt time.Time `json:"ts"`
	// Versions maps every channel that has a value to the version of that
	// value. A channel absent from Versions has no value.
	Versions map[string]string `json:"channel_versions"`
	// New holds the blobs for channels whose version first appears in this
	// checkpoint. On Put only these are stored; on Get it is nil.
	New map[string]Blob `json:"-"`
	// Values is filled by Get: every channel in Versions with its value.
	// Put ignores it.
	Values map[string]Value `json:"-"`
}

// Source says what made a checkpoint.
type Source string

// The sources of a checkpoint.
const (
	SourceInput  Source = "input"  // the input of a run (step -1)
	SourceLoop   Source = "loop"   // the end of a superstep
	SourceUpdate Source = "update" // a manual state update
	SourceFork   Source = "fork"   // a copy of a past checkpoint that starts a branch
)

// Metadata describes a checkpoint. Extra holds user metadata; List filters
// match on the standard keys ("source", "step", "run_id") and on Extra.
type Metadata struct {
	Source Source `json:"source"`
	Step   int    `json:"step"`
	// Parents maps a parent graph's namespace to its checkpoint id, for
	// checkpoints of subgraphs.
	Parents map[string]string `json:"parents,omitempty"`
	RunID   string            `json:"run_id,omitempty"`
	// Nodes lists the nodes whose writes this checkpoint applied, in the
	// order they were applied.
	Nodes []string       `json:"nodes,omitempty"`
	Extra map[string]any `json:"extra,omitempty"`
}

// PendingWrite is one write a task made, saved before the step that holds
// the task is complete.
type PendingWrite struct {
	TaskID  string `json:"task_id"`
	Index   int    `json:"idx"`
	Channel string `json:"channel"`
	Value   []byte `json:"value"`
}

// Tuple is a checkpoint as read back: its config, the checkpoint with
// Values filled in, its metadata, its parent's config, and the writes saved
// against it.
type Tuple struct {
	Config        Config
	Checkpoint    Checkpoint
	Metadata      Metadata
	Parent        *Config
	PendingWrites []PendingWrite
}

// PutRequest stores a checkpoint.
type PutRequest struct {
	// Config names the thread and namespace; its CheckpointID is the
	// parent ("" for the first checkpoint of a thread or namespace).
	Config     Config
	Checkpoint Checkpoint
	Metadata   Metadata
	// ExpectHead is the id the thread's newest checkpoint in this namespace
	// must have for the put to succeed ("" when the namespace must be
	// empty). A mismatch is ErrConflict and stores nothing. The new
	// checkpoint's id must sort after the head's: one that does not (made
	// by another process's clock) is ErrConflict too and stores nothing,
	// so the head is always the greatest id. A put that succeeds makes the
	// new checkpoint the head.
	ExpectHead string
}

// ListOptions narrow a List.
type ListOptions struct {
	// Filter keeps checkpoints whose metadata has these values: "source",
	// "step", "run_id", or a key of Metadata.Extra. Values compare after
	// a JSON round trip (so 3 matches 3.0).
	Filter map[string]any
	// Before keeps checkpoints older than this id.
	Before string
	// Limit caps the number of checkpoints that match Filter (0: no
	// limit).
	Limit int
	// SkipValue, when set, names the channel values List need not read:
	// a reader that can rebuild them from a checkpoint it already holds
	// (the runtime's History takes an unchanged field, or the prefix of
	// an append field, from the newer snapshot it yielded just before).
	// List calls it for each channel of Versions that is not reserved
	// (IsReserved), once per channel, for the checkpoints it yields and
	// in the order it yields them, all calls for one checkpoint before
	// any for the next (a List stopped early may have asked about a
	// checkpoint it then did not yield; one that Filter drops is never
	// asked about). t holds the checkpoint's Config, Parent,
	// Metadata and Versions (its values and pending writes may not be
	// read yet); the function must neither keep nor change it. A
	// channel it returns true for has no entry in Checkpoint.Values; a
	// reserved channel's value is always read. Nil reads every value.
	SkipValue func(t *Tuple, channel string) bool
}

// Saver stores checkpoints. Implementations must be safe for concurrent
// use. The runtime owns task bookkeeping, retries and locking; a Saver only
// stores and reads.
//
// A call whose context is cancelled either succeeds or fails with an
// error wrapping the context's error; a Put or PutWrites that fails stored
// nothing, and one that stored returns nil (it settles before returning).
// A backend may refuse data beyond its documented limits (an identifier
// too long, text it cannot hold): Put and PutWrites then fail, naming the
// field, and store nothing.
//
// Put takes ownership of what its request holds: the byte slices, the
// Versions and New maps and the Metadata's maps and slices are the
// saver's after the call, and the caller must not modify them. Byte
// slices that Get or List return are shared too and must not be modified;
// their maps and slices are the caller's.
//
// Pending writes with a non-negative Index are stored once: a second
// PutWrites of the same (checkpoint, task, index) keeps the first. Writes
// with a negative Index (the runtime uses them for ErrorChannel,
// InterruptChannel and ResumeChannel) replace an earlier write of the
// same (checkpoint, task, index). Get and List return pending writes
// ordered by task id, then index.
type Saver interface {
	// Put stores a checkpoint with its new blobs, as a compare-and-set on
	// the head of (thread, namespace). It returns the config of the stored
	// checkpoint.
	Put(ctx context.Context, req PutRequest) (Config, error)
	// PutWrites stores a task's writes against the checkpoint named by
	// cfg, each with its TaskID set to taskID. It is idempotent per (task,
	// index): storing the same writes again changes nothing. A checkpoint
	// that does not exist is ErrNotFound, and so is an empty
	// cfg.CheckpointID: writes belong to the checkpoint their task ran
	// from, never to whatever is the latest.
	PutWrites(ctx context.Context, cfg Config, taskID string, writes []PendingWrite) error
	// Get returns the checkpoint named by cfg, or the latest of the
	// thread and namespace when cfg.CheckpointID is "". ErrNotFound when
	// there is none.
	Get(ctx context.Context, cfg Config) (*Tuple, error)
	// List yields the checkpoints of a thread and namespace, newest
	// first. If cfg.CheckpointID is set, only that checkpoint is listed
	// (nothing when it does not exist).
	List(ctx context.Context, cfg Config, opts ListOptions) iter.Seq2[*Tuple, error]
	// DeleteThread removes every checkpoint, blob and write of a thread
	// in every namespace.
	DeleteThread(ctx context.Context, threadID string) error
}

// Copier is implemented by savers that can copy a thread.
type Copier interface {
	// CopyThread copies every checkpoint of src into dst, keeping their
	// ids. It fails with ErrNotFound when src has no checkpoint and with
	// ErrConflict when dst has one.
	CopyThread(ctx context.Context, src, dst string) error
}

// Pruner is implemented by savers that can drop old checkpoints.
type Pruner interface {
	// Prune keeps the newest keep checkpoints of each namespace of the
	// thread and deletes the rest, with the blobs and writes only they
	// used (the blobs a kept checkpoint reads, delta chains included, stay).
	// A negative keep is an error.
	Prune(ctx context.Context, threadID string, keep int) error
}
