package server

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

func writeSSEHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// stream sends a run's events after id from as server-sent events until
// the run ends or the client leaves; with cancelOnDisconnect a client
// that leaves first cancels the run.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, run *liveRun, from int, cancelOnDisconnect bool) {
	err := s.writeStream(w, r, func(ctx context.Context, tick <-chan time.Time, emit func(*sseEvent) error) error {
		return run.log.follow(ctx, from, tick, emit)
	})
	if err != nil && cancelOnDisconnect && !isClosed(run.done) {
		s.cancelLive(run, strategyInterrupt)
	}
}

// writeStream writes the events follow yields as server-sent events, with
// a heartbeat comment at each tick; it returns follow's error (a client
// that left, or a failed read).
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, follow func(ctx context.Context, tick <-chan time.Time, emit func(*sseEvent) error) error) error {
	writeSSEHeaders(w)
	flusher, _ := w.(http.Flusher)
	rc := http.NewResponseController(w)
	var tick <-chan time.Time
	if s.opts.heartbeat > 0 {
		t := time.NewTicker(s.opts.heartbeat)
		defer t.Stop()
		tick = t.C
	}
	return follow(r.Context(), tick, func(ev *sseEvent) error {
		if ev == nil {
			_, err := fmt.Fprint(w, ": heartbeat\n\n")
			if err == nil {
				err = rc.Flush()
			}
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\nid: %d\n\n", ev.Event, ev.Data, ev.ID); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
}
