package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stategraph/stategraph/retention"
)

var _ retention.Expirer = (*Saver)(nil)

// updated returns the creation time of the thread's newest checkpoint in
// any namespace. Callers hold mu.
func (th *thread) updated() time.Time {
	var last time.Time
	for _, sp := range th.spaces {
		for _, r := range sp.records {
			if r.createdAt.After(last) {
				last = r.createdAt
			}
		}
	}
	return last
}

// StaleThreads implements retention.Expirer.
func (s *Saver) StaleThreads(ctx context.Context, cutoff time.Time, after string, limit int) ([]retention.Thread, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: list threads older than %v: %w", cutoff, err)
	}
	s.mu.RLock()
	var out []retention.Thread
	for id, th := range s.threads {
		if id <= after {
			continue
		}
		if u := th.updated(); u.Before(cutoff) {
			out = append(out, retention.Thread{ID: id, Updated: u})
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b retention.Thread) int { return strings.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

// DeleteStaleThreads implements retention.Expirer, under the saver's lock:
// a Put either comes before (and keeps its thread) or after (and starts
// the thread afresh).
func (s *Saver) DeleteStaleThreads(ctx context.Context, cutoff time.Time, ids []string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: delete stale threads: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var deleted []string
	for _, id := range ids {
		th := s.threads[id]
		if th == nil || !th.updated().Before(cutoff) {
			continue
		}
		delete(s.threads, id)
		deleted = append(deleted, id)
	}
	slices.Sort(deleted)
	return deleted, nil
}
