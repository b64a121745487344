package memory

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Sizer = (*Saver)(nil)

// ThreadSize reports the thread's checkpoints and pending writes in every
// namespace; its Bytes are the stored values' and writes' bytes (the
// saver keeps no serialized metadata).
func (s *Saver) ThreadSize(ctx context.Context, threadID string) (checkpoint.Size, error) {
	if err := ctx.Err(); err != nil {
		return checkpoint.Size{}, fmt.Errorf("memory: size of thread %q: %w", threadID, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var size checkpoint.Size
	th := s.threads[threadID]
	if th == nil {
		return size, nil
	}
	for _, sp := range th.spaces {
		size.Checkpoints += int64(len(sp.records))
		for _, r := range sp.records {
			size.Writes += int64(len(r.writes))
			for _, w := range r.writes {
				size.Bytes += int64(len(w.Value))
			}
		}
		for _, e := range sp.blobs {
			size.Bytes += int64(len(e.blob.Data))
		}
	}
	return size, nil
}
