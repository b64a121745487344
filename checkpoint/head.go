package checkpoint

import "context"

// HeadGetter is implemented by savers that can read a checkpoint without
// reading the values of its channels: the tuple a reader needs when it
// already holds the decoded state (a process's cache of the checkpoints it
// saved), for one indexed read instead of a read of every blob.
type HeadGetter interface {
	// GetHead returns what Get returns for cfg — the checkpoint cfg
	// names, or the latest of the thread and namespace when
	// cfg.CheckpointID is "" — except that Checkpoint.Values holds only
	// the values of the reserved channels (IsReserved) that Versions
	// names: the runtime's small bookkeeping, such as NextChannel (the
	// schedule of the next step, which a reader needs beside the state)
	// or a wrapping saver's own channels, and none of the state's fields.
	// Config, Parent, Metadata, CreatedAt, Versions and the pending writes
	// are Get's. ErrNotFound when there is no such checkpoint.
	GetHead(ctx context.Context, cfg Config) (*Tuple, error)
}
