package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stategraph/stategraph/worker"
)

// A run executed by a worker keeps its events in the store's events table:
// one row per SSE event, numbered from 1 within the run (a retry goes on
// from the last number), written by the executing process in batches off
// the run's path, each batch with a NOTIFY on the server's channel whose
// payload is the run id. Each replica listens on that channel on one
// connection and wakes its streams of that run, which read the rows after
// the last id they sent. Row 0 holds the run's result once it ended.

// resultSeq is the row of a run's result in the events table.
const resultSeq = 0

// hub is a replica's listener of event notifications.
type hub struct {
	pool    *pgxpool.Pool
	channel string

	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

func newHub(pool *pgxpool.Pool, channel string) *hub {
	return &hub{pool: pool, channel: channel, subs: map[string]map[chan struct{}]struct{}{}}
}

// run listens until ctx is done, listening again after a failure (the
// streams poll meanwhile).
func (h *hub) run(ctx context.Context) {
	for ctx.Err() == nil {
		err := h.listen(ctx)
		if ctx.Err() != nil || err == nil {
			return
		}
		h.wakeAll() // what was missed, the streams read again
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (h *hub) listen(ctx context.Context) error {
	conn, err := h.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{h.channel}.Sanitize()); err != nil {
		return err
	}
	defer func() {
		// Unlisten before the connection goes back to the pool.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "UNLISTEN *"); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // dropped from the pool either way
		}
	}()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		h.wake(n.Payload)
	}
}

// subscribe returns a channel that receives after each notification of
// the run's events; call the func to stop.
func (h *hub) subscribe(runID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs[runID] == nil {
		h.subs[runID] = map[chan struct{}]struct{}{}
	}
	h.subs[runID][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[runID], ch)
		if len(h.subs[runID]) == 0 {
			delete(h.subs, runID)
		}
		h.mu.Unlock()
	}
}

func (h *hub) wake(runID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[runID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (h *hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for ch := range subs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// pgLog is the writer of a run's events in the executing process: append
// numbers an event and returns at once; a goroutine writes what has
// accumulated, one batch at a time, in order.
type pgLog struct {
	cl            *cluster
	thread, runID string
	logf          func(string, ...any)

	mu       sync.Mutex
	next     int
	buf      []sseEvent
	detached bool
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

// openLog starts the event writer of a run, numbering after the events an
// earlier execution wrote.
func (cl *cluster) openLog(ctx context.Context, thread, runID string, logf func(string, ...any)) (*pgLog, error) {
	var last int
	if err := cl.st.pool.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM `+cl.st.events+` WHERE run_id = $1`, runID).Scan(&last); err != nil {
		return nil, fmt.Errorf("server: events of run %q: %w", runID, err)
	}
	l := &pgLog{cl: cl, thread: thread, runID: runID, logf: logf, next: last + 1,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go l.loop()
	return l, nil
}

func (l *pgLog) append(event string, data []byte) {
	l.mu.Lock()
	l.buf = append(l.buf, sseEvent{ID: l.next, Event: event, Data: data})
	l.next++
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// result records the run's result (row 0).
func (l *pgLog) result(data []byte) {
	l.mu.Lock()
	l.buf = append(l.buf, sseEvent{ID: resultSeq, Event: "result", Data: data})
	l.mu.Unlock()
}

// close writes what is left and stops the writer.
func (l *pgLog) close() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// detach stops the writer once it has written what it was writing, and
// returns what it had not: the caller writes it (in the transaction that
// records the run's end).
func (l *pgLog) detach() []sseEvent {
	l.mu.Lock()
	l.detached = true
	l.mu.Unlock()
	l.close()
	l.mu.Lock()
	defer l.mu.Unlock()
	evs := l.buf
	l.buf = nil
	return evs
}

func (l *pgLog) loop() {
	defer close(l.done)
	for {
		select {
		case <-l.kick:
			l.flush()
		case <-l.stop:
			l.mu.Lock()
			detached := l.detached
			l.mu.Unlock()
			if !detached {
				l.flush()
			}
			return
		}
	}
}

func (l *pgLog) flush() {
	l.mu.Lock()
	evs := l.buf
	l.buf = nil
	l.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = l.write(ctx, l.cl.st.pool, evs)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	if l.logf != nil {
		l.logf("server: run %q: %d events lost: %v", l.runID, len(evs), err)
	}
}

// write inserts events and notifies the replicas.
func (l *pgLog) write(ctx context.Context, db execer, evs []sseEvent) error {
	if len(evs) == 0 {
		return nil
	}
	seqs := make([]int32, len(evs))
	names := make([]string, len(evs))
	datas := make([]string, len(evs))
	for i, ev := range evs {
		seqs[i], names[i], datas[i] = int32(ev.ID), ev.Event, string(ev.Data)
	}
	_, err := db.Exec(ctx, `WITH ins AS (
	INSERT INTO `+l.cl.st.events+` (run_id, thread_id, seq, event, data)
	SELECT $1, $2, u.s, u.e, u.d FROM unnest($3::int[], $4::text[], $5::text[]) AS u(s, e, d)
	ON CONFLICT (run_id, seq) DO UPDATE SET event = excluded.event, data = excluded.data
)
SELECT pg_notify($6, $1)`, l.runID, l.thread, seqs, names, datas, l.cl.hub.channel)
	return err
}

// endGrace is how long after a run's end its stream waits for the end
// event of the process that executed it, before it ends the stream itself
// (that process died between recording the end and writing the event).
const endGrace = 10 * time.Second

// settleEvery is how many polls of a stream go by between two reads of
// its run that settle a run orphaned by its job (worker.Client.Run).
const settleEvery = 20

// follow calls emit for each event of a run after id, waiting for new
// ones until the end event, ctx is done, or emit fails; at each tick while
// it waits it calls emit(nil). A run that ended without an end event (it
// was cancelled or rejected before it started) gets one made up.
func (cl *cluster) follow(ctx context.Context, runID string, id int, tick <-chan time.Time, emit func(*sseEvent) error) error {
	wake, stop := cl.hub.subscribe(runID)
	defer stop()
	poll := time.NewTicker(cl.poll)
	defer poll.Stop()
	polls := 0
	for {
		evs, err := cl.events(ctx, runID, id)
		if err != nil {
			return err
		}
		for i := range evs {
			ev := &evs[i]
			if err := emit(ev); err != nil {
				return err
			}
			id = ev.ID
			if ev.Event == "end" {
				return nil
			}
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
		case <-poll.C:
			// A cheap read at each poll; now and then one that also
			// closes a run whose job ended without finishing it.
			peek := cl.c.Peek
			if polls++; polls%settleEvery == 0 {
				peek = cl.c.Run
			}
			r, err := peek(ctx, runID)
			if errors.Is(err, worker.ErrNotFound) {
				return nil // rolled back
			}
			if err != nil || !r.Status.Done() || (r.Attempts > 0 && time.Since(r.UpdatedAt) < endGrace) {
				continue
			}
			if evs, err := cl.events(ctx, runID, id); err != nil || len(evs) > 0 {
				continue // read them first
			}
			data, _ := json.Marshal(map[string]any{"run_id": runID, "status": runStatus(r.Status)})
			return emit(&sseEvent{ID: id + 1, Event: "end", Data: data})
		}
	}
}

// events reads a run's events after id.
func (cl *cluster) events(ctx context.Context, runID string, id int) ([]sseEvent, error) {
	rows, err := cl.st.pool.Query(ctx, `SELECT seq, event, data FROM `+cl.st.events+` WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT 1000`, runID, id)
	if err != nil {
		return nil, fmt.Errorf("server: events of run %q: %w", runID, err)
	}
	defer rows.Close()
	var out []sseEvent
	for rows.Next() {
		var (
			ev   sseEvent
			data string
		)
		if err := rows.Scan(&ev.ID, &ev.Event, &data); err != nil {
			return nil, err
		}
		ev.Data = []byte(data)
		out = append(out, ev)
	}
	return out, rows.Err()
}

// lastEvent is the id of a run's newest event, and whether it is the end.
func (cl *cluster) lastEvent(ctx context.Context, runID string) (int, bool, error) {
	var (
		id    int
		event string
	)
	err := cl.st.pool.QueryRow(ctx, `SELECT seq, event FROM `+cl.st.events+` WHERE run_id = $1 AND seq > 0 ORDER BY seq DESC LIMIT 1`, runID).Scan(&id, &event)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, event == "end", err
}

// result is what /runs/wait returns for an ended run: the result its
// execution recorded, or, for a run that never executed, null or its
// error.
func (cl *cluster) result(ctx context.Context, runID string) (json.RawMessage, error) {
	var data string
	err := cl.st.pool.QueryRow(ctx, `SELECT data FROM `+cl.st.events+` WHERE run_id = $1 AND seq = $2`, runID, resultSeq).Scan(&data)
	if err == nil {
		return json.RawMessage(data), nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	r, err := cl.c.Run(ctx, runID)
	if err != nil && !errors.Is(err, worker.ErrNotFound) {
		return nil, err
	}
	if r != nil && r.Status == worker.StatusError {
		out, _ := json.Marshal(map[string]any{"__error__": map[string]any{"error": "Error", "message": r.Error}})
		return out, nil
	}
	return json.RawMessage("null"), nil
}

// waitEnd waits until a run's stream has ended.
func (cl *cluster) waitEnd(ctx context.Context, runID string) error {
	from, ended, err := cl.lastEvent(ctx, runID)
	if err != nil || ended {
		return err
	}
	return cl.follow(ctx, runID, from, nil, func(*sseEvent) error { return nil })
}
