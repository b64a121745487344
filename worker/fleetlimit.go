package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The fleet's bound. River's open-source client bounds the runs of one
// process (MaxWorkers); a bound over every process of a queue is a River
// Pro feature. This package keeps its own: the bound n is n slots, each a
// PostgreSQL session advisory lock (key: the schema and queue, slot
// number) that a Client holds on a connection of its own. A Client
// executes at most as many runs at once as it holds slots, so the fleet
// never executes more than n. A process that dies loses its session, and
// the server frees its slots with it. Slots follow the work: a Client
// whose runs wait for a slot takes free ones at its next balance (every
// slotBalance), and a Client gives back the slots that were idle (more
// than its running and waiting runs) at two balances in a row, so no
// process sits on slots that another needs.

// WithFleetLimit bounds the runs that all the Clients of this schema and
// queue with the same limit execute at once to n (0, the default: no
// bound but each Client's WithWorkers). A run fetched while its Client
// holds no free slot waits for one. Size each process's pool for its
// share (PoolSize of min(workers, n)) and the database for n; see
// docs/deployment.md.
func WithFleetLimit(n int) Option { return func(c *Client) { c.fleet.n = n } }

// fleetSlots is a Client's part of the fleet's bound.
type fleetSlots struct {
	n    int          // the bound; 0 for none
	conn *pgx.Conn    // the session that holds the slots
	held map[int]bool // slot numbers held
	gate gate         // runs at once: at most len(held)
	idle int          // slots idle at the last balance
	stop chan struct{}
	done chan struct{}
}

// gate counts runs at once against a limit that may change.
type gate struct {
	mu      sync.Mutex
	limit   int
	busy    int
	waiting int
	wake    chan struct{} // closed when limit grows or busy falls
}

func (g *gate) init() {
	g.mu.Lock()
	if g.wake == nil {
		g.wake = make(chan struct{})
	}
	g.mu.Unlock()
}

// enter waits until a run may start, or ctx is done.
func (g *gate) enter(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.busy < g.limit {
			g.busy++
			g.mu.Unlock()
			return nil
		}
		w := g.wake
		g.waiting++
		g.mu.Unlock()
		var err error
		select {
		case <-w:
		case <-ctx.Done():
			err = context.Cause(ctx)
		}
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// leave ends a run started by enter.
func (g *gate) leave() {
	g.mu.Lock()
	g.busy--
	g.signal()
	g.mu.Unlock()
}

// signal wakes the waiters; g.mu is held.
func (g *gate) signal() {
	close(g.wake)
	g.wake = make(chan struct{})
}

// slotBalance is how often a Client gives back idle slots and looks for
// free ones for runs that still wait.
const slotBalance = 200 * time.Millisecond

// slotKey is the first key of the slots' advisory locks, as the server
// computes it from the schema and queue.
const slotKey = `hashtext('stategraph/fleet/' || $1::text || '/' || $2::text)`

// startFleet opens the session of the Client's slots and starts their balance.
func (c *Client) startFleet(ctx context.Context) error {
	f := &c.fleet
	if f.n <= 0 {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, c.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("worker: start: open the session of the fleet's slots: %w", err)
	}
	f.conn, f.held = conn, map[int]bool{}
	f.gate.init()
	if err := c.balanceSlots(ctx); err != nil {
		conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // closing frees the slots
		return fmt.Errorf("worker: start: take slots of the fleet's %d: %w", f.n, err)
	}
	f.stop, f.done = make(chan struct{}), make(chan struct{})
	go c.keepSlots(f.stop, f.done)
	return nil
}

// stopFleet frees the Client's slots.
func (c *Client) stopFleet() {
	f := &c.fleet
	if f.stop == nil {
		return
	}
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
}

// keepSlots balances the Client's slots every slotBalance until stopped;
// then it closes their session.
func (c *Client) keepSlots(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(slotBalance)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c.fleet.conn.Close(ctx) //nolint:errcheck // closing frees the slots
			cancel()
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.beat)
		_ = c.balanceSlots(ctx) // tried again at the next balance
		cancel()
	}
}

// balanceSlots takes free slots for the Client's waiting runs, or gives
// back the slots neither a running nor a waiting run needs. A session
// lost (the database restarted) holds nothing: its slots are forgotten
// and a new session takes others.
func (c *Client) balanceSlots(ctx context.Context) error {
	f := &c.fleet
	if f.conn.IsClosed() {
		f.gate.mu.Lock()
		f.gate.limit = 0
		f.gate.mu.Unlock()
		f.held = map[int]bool{}
		conn, err := pgx.ConnectConfig(ctx, c.pool.Config().ConnConfig.Copy())
		if err != nil {
			return err
		}
		f.conn = conn
	}
	f.gate.mu.Lock()
	want := min(c.workers, f.n, f.gate.busy+f.gate.waiting)
	f.gate.mu.Unlock()
	// A slot is given back only when it was idle at the last balance too:
	// between one run's end and the next run's fetch it stays.
	if idle := len(f.held) - want; idle > 0 {
		want = len(f.held) - min(idle, f.idle)
		f.idle = idle
	} else {
		f.idle = 0
	}
	switch {
	case len(f.held) < want:
		held := make([]int32, 0, len(f.held))
		for i := range f.held {
			held = append(held, int32(i))
		}
		rows, err := f.conn.Query(ctx, `SELECT i FROM generate_series(0, $3::int - 1) i
WHERE CASE WHEN i = ANY($4::int[]) THEN false ELSE pg_try_advisory_lock(`+slotKey+`, i) END LIMIT $5`,
			c.schema, c.queue, f.n, held, want-len(f.held))
		if err != nil {
			return c.slotsLost(ctx, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return c.slotsLost(ctx, err)
		}
		for _, i := range got {
			f.held[int(i)] = true
		}
		f.gate.mu.Lock()
		f.gate.limit = len(f.held)
		f.gate.signal()
		f.gate.mu.Unlock()
	case len(f.held) > want:
		// Stop idle slots from taking runs before giving them back.
		f.gate.mu.Lock()
		keep := max(want, f.gate.busy)
		f.gate.limit = keep
		f.gate.mu.Unlock()
		var give []int32
		for i := range f.held {
			if len(f.held)-len(give) <= keep {
				break
			}
			give = append(give, int32(i))
		}
		if len(give) == 0 {
			return nil
		}
		if _, err := f.conn.Exec(ctx, `SELECT pg_advisory_unlock(`+slotKey+`, i) FROM unnest($3::int[]) i`, c.schema, c.queue, give); err != nil {
			return c.slotsLost(ctx, err)
		}
		for _, i := range give {
			delete(f.held, int(i))
		}
	}
	return nil
}

// slotsLost closes a session that failed, so the next balance starts a
// new one; until then the Client starts no run.
func (c *Client) slotsLost(ctx context.Context, err error) error {
	f := &c.fleet
	f.gate.mu.Lock()
	f.gate.limit = 0
	f.gate.mu.Unlock()
	f.conn.Close(ctx) //nolint:errcheck // closing frees the slots
	f.held = map[int]bool{}
	return err
}

// Slots returns how many of the fleet's slots (WithFleetLimit) the Client
// holds, and how many of them runs use.
func (c *Client) Slots() (held, busy int) {
	c.fleet.gate.mu.Lock()
	defer c.fleet.gate.mu.Unlock()
	return c.fleet.gate.limit, c.fleet.gate.busy
}
