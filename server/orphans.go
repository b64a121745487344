package server

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/procid"
)

// Runs that died with their process. A run this server executes in
// process (without WithWorkers) records its owner: the procid of the
// process executing it. A record still pending or running whose owner is
// known to have ended (killed, crashed; on this machine, see procid.Gone)
// will never be finished by anyone: the server marks it error, with the
// reason, sets its thread's status to error, and frees the lease the run
// left on the thread, so the thread can be resumed at once (a new run
// with no input continues from the last checkpoint the dead run stored;
// no step is run again, see graph). It does so for every such record at
// New (a restarted server), and for one a request reads later (another
// server process on the same files died). A record whose owner runs on
// another machine is left to that machine's server; runs of many
// machines belong under WithWorkers, whose workers re-queue the runs of a
// silent worker (package worker).

// errRunLost is the error of a run whose process ended before the run did.
func errRunLost(rec RunRecord) string {
	return fmt.Sprintf("run %q of thread %q was lost: its process (%s) ended before the run finished; resume the thread to continue from its last checkpoint",
		rec.RunID, rec.ThreadID, rec.Owner)
}

// orphaned reports whether a run record will never be finished by its
// owner: pending or running, not executed here, and its owner gone.
func (s *Server) orphaned(rec RunRecord) bool {
	if s.cl != nil || (rec.Status != RunPending && rec.Status != RunRunning) || rec.Owner == "" || rec.Owner == procid.Self() {
		return false
	}
	return procid.Gone(rec.Owner)
}

// settle returns rec as it stands: an orphaned record is marked error
// (with its thread and its lease) first.
func (s *Server) settle(ctx context.Context, rec RunRecord) RunRecord {
	if !s.orphaned(rec) {
		return rec
	}
	if s.liveRunOf(rec.ThreadID, rec.RunID) != nil {
		return rec
	}
	ctx = context.WithoutCancel(ctx)
	rec.Status, rec.Error, rec.UpdatedAt = RunError, errRunLost(rec), s.opts.now().UTC()
	if err := s.store.PutRun(ctx, rec); err != nil {
		s.logf("server: record the loss of run %q of thread %q: %v", rec.RunID, rec.ThreadID, err)
		return rec
	}
	s.mu.Lock()
	_, live := s.threads[rec.ThreadID]
	s.mu.Unlock()
	if t, err := s.store.GetThread(ctx, rec.ThreadID); err == nil && !live && t.Status == StatusBusy {
		t.Status, t.Error, t.UpdatedAt = StatusError, rec.Error, rec.UpdatedAt
		s.atRest(ctx, &t)
		if err := s.store.PutThread(ctx, t); err != nil {
			s.logf("server: record the loss of run %q on thread %q: %v", rec.RunID, rec.ThreadID, err)
		}
	}
	s.freeLostLease(ctx, rec)
	return rec
}

// freeLostLease breaks the lease a lost run left on its thread in the
// savers of the server's graphs, when they can (checkpoint.LeaseBreaker).
func (s *Server) freeLostLease(ctx context.Context, rec RunRecord) {
	seen := map[checkpoint.Saver]bool{}
	for _, a := range s.assistants {
		saver := a.g.Saver()
		if seen[saver] {
			continue
		}
		seen[saver] = true
		l, ok := saver.(checkpoint.Leaser)
		b, ok2 := saver.(checkpoint.LeaseBreaker)
		if !ok || !ok2 {
			continue
		}
		info, err := l.LeaseOf(ctx, rec.ThreadID)
		if err != nil || info == nil || !graph.IsRunLeaseHolder(info.Holder, rec.RunID) {
			continue
		}
		if _, err := b.BreakLease(ctx, rec.ThreadID, info.Holder); err != nil {
			s.logf("server: free the lease run %q left on thread %q: %v", rec.RunID, rec.ThreadID, err)
		}
	}
}

// settleOrphans settles the records of runs lost with their process, of
// every thread the store says is busy: a server started again after its
// process was killed finds its runs' records as that process left them.
func (s *Server) settleOrphans(ctx context.Context) error {
	if s.cl != nil {
		return nil
	}
	var busy []ThreadRecord
	const pageSize = 500
	for off := 0; ; off += pageSize {
		ts, err := s.store.SearchThreads(ctx, ThreadQuery{Status: StatusBusy, Limit: pageSize, Offset: off, SortOrder: "asc"})
		if err != nil {
			return fmt.Errorf("server: find the runs left by an ended process: %w", err)
		}
		busy = append(busy, ts...)
		if len(ts) < pageSize {
			break
		}
	}
	for _, t := range busy {
		runs, err := s.store.ListRuns(ctx, t.ThreadID, "", 0, 0)
		if err != nil {
			return fmt.Errorf("server: find the runs of thread %q left by an ended process: %w", t.ThreadID, err)
		}
		for _, rec := range runs {
			s.settle(ctx, rec)
		}
	}
	return nil
}

// logf reports what the server could not do for no request in particular.
func (s *Server) logf(format string, args ...any) {
	if s.opts.logf != nil {
		s.opts.logf(format, args...)
	}
}
