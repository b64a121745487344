package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// storageField is the field of GET /threads/{id}'s answer that reports
// what the thread's checkpointer stores for it (LangGraph has no such
// field): {"checkpoints": n, "writes": n, "bytes": n}, as
// checkpoint.Size. The field is absent when the checkpointer is no
// checkpoint.Sizer, or the thread has no graph yet (it has no
// checkpoints).
const storageField = "storage"

// storageOf is thread t's stored size, or nil when its checkpointer
// reports none.
func (s *Server) storageOf(ctx context.Context, t ThreadRecord) (*checkpoint.Size, error) {
	g := s.graphOf(t)
	if g == nil {
		return nil, nil
	}
	sz, ok := g.Saver().(checkpoint.Sizer)
	if !ok {
		return nil, nil
	}
	size, err := sz.ThreadSize(ctx, t.ThreadID)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("thread %q: storage: %w", t.ThreadID, err)
	}
	return &size, nil
}
