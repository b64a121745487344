package server

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// sseEvent is one server-sent event of a run: its id (a sequence number
// within the run), its name and its JSON data.
type sseEvent struct {
	ID    int
	Event string
	Data  []byte
}

// eventLog is a run's events, kept (the last limit of them) so that a
// client can join the stream late or rejoin it after a drop with
// Last-Event-ID. Readers wait on a channel that is closed at each append.
type eventLog struct {
	mu     sync.Mutex
	limit  int
	events []sseEvent
	next   int // id of the next event
	closed bool
	wake   chan struct{}
}

func newEventLog(limit int) *eventLog {
	return &eventLog{limit: limit, next: 1, wake: make(chan struct{})}
}

func (l *eventLog) append(event string, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.events = append(l.events, sseEvent{ID: l.next, Event: event, Data: data})
	l.next++
	if len(l.events) > l.limit {
		l.events = append(l.events[:0:0], l.events[len(l.events)-l.limit:]...)
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// close marks the log complete: readers return once they have read it.
func (l *eventLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
}

// after returns the kept events with ids above id, whether the log is
// complete, and a channel closed at the next change.
func (l *eventLog) after(id int) ([]sseEvent, bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := 0
	for i < len(l.events) && l.events[i].ID <= id {
		i++
	}
	return append([]sseEvent(nil), l.events[i:]...), l.closed, l.wake
}

// follow calls emit for each event after id, waiting for new ones until
// the log is complete, ctx is done, or emit fails. At each tick while it
// waits it calls emit(nil) (a heartbeat).
func (l *eventLog) follow(ctx context.Context, id int, tick <-chan time.Time, emit func(*sseEvent) error) error {
	for {
		evs, closed, wake := l.after(id)
		for i := range evs {
			ev := &evs[i]
			if err := emit(ev); err != nil {
				return err
			}
			id = ev.ID
		}
		if closed && len(evs) == 0 {
			return nil
		}
		if len(evs) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-tick:
			if err := emit(nil); err != nil {
				return err
			}
		}
	}
}

// parseEventID reads a Last-Event-ID header: 0 (from the start) when it is
// absent or not a number.
func parseEventID(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
