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

// VerifyHistory lists the whole history of (thread, ns) from s, newest
// first, and checks its parent links: each checkpoint's parent is older
// than it and, when it is not older than the oldest checkpoint listed
// (which may have been pruned past), among those listed. It returns the
// ids listed. A broken link is reported through corrupt, which names the
// thread, namespace and checkpoint in the saver's own words and wraps
// ErrCorrupt. The durable savers' Verify methods start with it.
func VerifyHistory(ctx context.Context, s Saver, thread, ns string, corrupt func(thread, ns, id, format string, args ...any) error) (map[string]bool, error) {
	ids := map[string]bool{}
	var tups []*Tuple
	for tup, err := range s.List(ctx, Config{ThreadID: thread, Namespace: ns}, ListOptions{}) {
		if err != nil {
			return nil, err
		}
		ids[tup.Checkpoint.ID] = true
		tups = append(tups, tup)
	}
	if len(tups) == 0 {
		return ids, nil
	}
	oldest := tups[len(tups)-1].Checkpoint.ID
	for _, tup := range tups {
		if tup.Parent == nil {
			continue
		}
		p, id := tup.Parent.CheckpointID, tup.Checkpoint.ID
		switch {
		case p >= id:
			return nil, corrupt(thread, ns, id, "its parent %q is not older than it", p)
		case p >= oldest && !ids[p]:
			return nil, corrupt(thread, ns, id, "its parent %q is missing", p)
		}
	}
	return ids, nil
}
