package memory

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// List yields the checkpoints of cfg's thread and namespace, newest first,
// narrowed by opts; only cfg.CheckpointID when it is set. It works on the
// checkpoints stored when iteration starts, builds each tuple as it is
// yielded, and holds no lock while the caller's loop body or
// opts.SkipValue runs, so either may call the Saver. A value SkipValue
// skips is not rebuilt from its blobs.
func (s *Saver) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return func(yield func(*checkpoint.Tuple, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(nil, fmt.Errorf("memory: list thread %q ns %q: %w", cfg.ThreadID, cfg.Namespace, err))
			return
		}
		s.mu.RLock()
		sp := s.space(cfg.ThreadID, cfg.Namespace)
		var recs []*record
		if sp != nil {
			recs = sp.records // appends never touch the elements already there
		}
		s.mu.RUnlock()

		lo, hi := 0, len(recs)
		if cfg.CheckpointID != "" {
			i, ok := searchRecords(recs, cfg.CheckpointID)
			if !ok {
				return
			}
			lo, hi = i, i+1
		}
		if opts.Before != "" {
			i, _ := searchRecords(recs, opts.Before)
			hi = min(hi, i)
		}
		n := 0
		for i := hi - 1; i >= lo; i-- {
			rec := recs[i]
			if !rec.metadata.Matches(opts.Filter) {
				continue
			}
			if err := ctx.Err(); err != nil {
				yield(nil, fmt.Errorf("memory: list thread %q ns %q: %w", cfg.ThreadID, cfg.Namespace, err))
				return
			}
			s.mu.RLock()
			pruned, writes := rec.pruned, rec.writes
			s.mu.RUnlock()
			if pruned {
				continue
			}
			tup, err := tuple(cfg.ThreadID, cfg.Namespace, rec, writes, opts.SkipValue)
			if !yield(tup, err) || err != nil {
				return
			}
			if n++; opts.Limit > 0 && n >= opts.Limit {
				return
			}
		}
	}
}

// searchRecords finds id in records ordered by id: its index, or where it
// would be inserted.
func searchRecords(recs []*record, id string) (int, bool) {
	return slices.BinarySearchFunc(recs, id, func(r *record, id string) int { return strings.Compare(r.id, id) })
}
