package checkpoint

import "context"

// Verifier is implemented by savers that can check a whole thread
// against the integrity data they store with it.
//
// The durable savers (checkpoint/sqlite, checkpoint/postgres) check on
// every Get and List what the read returns, with no extra round trip:
// every column of every row against its checksum, the blobs a
// checkpoint's versions name, and the count of its pending writes; a List
// of a whole history also checks that its checkpoints link up with no
// row missing between them. Verify does what a read cannot do cheaply: it
// walks every checkpoint, blob and pending write of the thread, in every
// namespace, and checks every row and every link (parent, previous
// checkpoint, head, delta bases, writes), rows no checkpoint reads
// included.
type Verifier interface {
	// Verify returns nil when every row of the thread matches its
	// checksum and every link holds, and otherwise an error wrapping
	// ErrCorrupt that names the thread, namespace and checkpoint (or
	// blob) of the first damage it found and what is wrong. A thread with
	// no checkpoint is not an error. Other failures (the database cannot
	// be reached, ctx is cancelled) are returned as they are.
	Verify(ctx context.Context, threadID string) error
}
