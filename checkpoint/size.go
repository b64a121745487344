package checkpoint

import "context"

// Size is what a saver stores for one thread, in every namespace.
type Size struct {
	// Checkpoints is the number of stored checkpoints.
	Checkpoints int64 `json:"checkpoints"`
	// Writes is the number of stored pending writes.
	Writes int64 `json:"writes"`
	// Bytes is the bytes of the thread's stored payloads as the saver
	// keeps them (serialized values, pending writes' values, checkpoints'
	// versions and metadata; encrypted when the saver encrypts), without
	// the storage engine's own overhead (indexes, pages). It compares
	// threads of one saver, not savers.
	Bytes int64 `json:"bytes"`
}

// Sizer is implemented by savers that report what they store for a
// thread. A thread without checkpoints has the zero Size, not
// ErrNotFound. A wrapping saver that has the method whatever it wraps
// (encrypt's) returns an error wrapping errors.ErrUnsupported when the
// saver it wraps is no Sizer.
type Sizer interface {
	ThreadSize(ctx context.Context, threadID string) (Size, error)
}
