package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
)

// DeleteThread removes every checkpoint, blob and write of a thread in
// every namespace. Deleting an unknown thread is not an error.
func (s *Saver) DeleteThread(ctx context.Context, threadID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: delete thread %q: %w", threadID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.threads, threadID)
	return nil
}

// CopyThread copies every checkpoint of src, in every namespace, with its
// blobs and pending writes, into dst, keeping checkpoint ids. It returns
// checkpoint.ErrNotFound when src has no checkpoints and
// checkpoint.ErrConflict when dst already has some.
func (s *Saver) CopyThread(ctx context.Context, src, dst string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: copy thread %q to %q: %w", src, dst, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.threads[src]
	if from == nil {
		return fmt.Errorf("memory: copy thread %q to %q: source thread %q: %w", src, dst, src, checkpoint.ErrNotFound)
	}
	if s.threads[dst] != nil {
		return fmt.Errorf("memory: copy thread %q to %q: destination thread %q exists: %w", src, dst, dst, checkpoint.ErrConflict)
	}
	to := &thread{spaces: make(map[string]*space, len(from.spaces))}
	for ns, sp := range from.spaces {
		recs := make([]*record, len(sp.records))
		for i, r := range sp.records {
			c := *r // channels, entries, metadata and writes are never modified in place
			recs[i] = &c
		}
		to.spaces[ns] = &space{records: recs, blobs: maps.Clone(sp.blobs)}
	}
	s.threads[dst] = to
	return nil
}

// Prune keeps the newest keep checkpoints of each namespace of the thread
// and deletes the others, with their pending writes and the blobs no kept
// checkpoint needs (a kept delta keeps its whole chain back to a
// snapshot). With keep 0 the thread is deleted; keep < 0 is an error.
func (s *Saver) Prune(ctx context.Context, threadID string, keep int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: prune thread %q: %w", threadID, err)
	}
	if keep < 0 {
		return fmt.Errorf("memory: prune thread %q: keep %d is negative", threadID, keep)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	th := s.threads[threadID]
	if th == nil {
		return nil
	}
	for ns, sp := range th.spaces {
		drop := len(sp.records) - keep
		if drop <= 0 {
			continue
		}
		for _, r := range sp.records[:drop] {
			r.pruned = true
		}
		if keep == 0 {
			delete(th.spaces, ns)
			continue
		}
		sp.records = slices.Clone(sp.records[drop:])
		live := make(map[*entry]bool, len(sp.blobs))
		for _, r := range sp.records {
			for _, ch := range r.channels {
				for e := ch.entry; e != nil && !live[e]; e = e.base {
					live[e] = true
				}
			}
		}
		maps.DeleteFunc(sp.blobs, func(_ blobKey, e *entry) bool { return !live[e] })
	}
	if len(th.spaces) == 0 {
		delete(s.threads, threadID)
	}
	return nil
}
