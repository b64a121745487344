package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// cronStore keeps crons: in the server's memory by default, in
// PostgreSQL with WithWorkers, where every replica sees the same crons and
// the replica that advances a cron's next run fires it.
type cronStore interface {
	put(ctx context.Context, c *cron) error
	// get returns a cron, ErrNotFound when there is none.
	get(ctx context.Context, id string) (*cron, error)
	del(ctx context.Context, id string) error
	all(ctx context.Context) ([]*cron, error)
	// advance stores c if its next run is still prev, and reports
	// whether it did: of several replicas due to fire a cron, one wins.
	advance(ctx context.Context, c *cron, prev time.Time) (bool, error)
}

// clone copies a cron, so that no two goroutines share one.
func (c *cron) clone() *cron {
	cp := *c
	cp.Payload = maps.Clone(c.Payload)
	cp.Metadata = maps.Clone(c.Metadata)
	return &cp
}

// memoryCrons is the default cronStore.
type memoryCrons struct {
	mu    sync.Mutex
	crons map[string]*cron
}

func (m *memoryCrons) put(_ context.Context, c *cron) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.crons[c.ID] = c.clone()
	return nil
}

func (m *memoryCrons) get(_ context.Context, id string) (*cron, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.crons[id]
	if !ok {
		return nil, fmt.Errorf("cron %q: %w", id, ErrNotFound)
	}
	return c.clone(), nil
}

func (m *memoryCrons) del(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.crons, id)
	return nil
}

func (m *memoryCrons) all(context.Context) ([]*cron, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*cron, 0, len(m.crons))
	for _, c := range m.crons {
		out = append(out, c.clone())
	}
	return out, nil
}

func (m *memoryCrons) advance(_ context.Context, c *cron, prev time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.crons[c.ID]
	if !ok || !cur.Next.Equal(prev) {
		return false, nil
	}
	m.crons[c.ID] = c.clone()
	return true, nil
}

// pgCrons keeps crons in the PostgresStore's crons table: the record as
// JSON, and its next run in a column of its own for advance's
// compare-and-set.
type pgCrons struct{ st *PostgresStore }

// nullTime is a time for a TIMESTAMPTZ that may be NULL (zero), at
// PostgreSQL's precision.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t
}

func (p pgCrons) put(ctx context.Context, c *cron) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("cron %q: %w", c.ID, err)
	}
	_, err = p.st.pool.Exec(ctx, `INSERT INTO `+p.st.crons+` (cron_id, record, next_run, created_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (cron_id) DO UPDATE SET record = excluded.record, next_run = excluded.next_run`, c.ID, data, nullTime(c.Next), c.CreatedAt)
	if err != nil {
		return fmt.Errorf("cron %q: %w", c.ID, err)
	}
	return nil
}

// decodeCron reads a stored cron, with its parsed schedule and zone.
func decodeCron(data []byte) (*cron, error) {
	var c cron
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	sc, err := parseSchedule(c.Schedule)
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", c.ID, err)
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", c.ID, err)
	}
	c.sched, c.loc = sc, loc
	if c.Payload == nil {
		c.Payload = map[string]json.RawMessage{}
	}
	return &c, nil
}

func (p pgCrons) get(ctx context.Context, id string) (*cron, error) {
	var data []byte
	err := p.st.pool.QueryRow(ctx, `SELECT record FROM `+p.st.crons+` WHERE cron_id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("cron %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cron %q: %w", id, err)
	}
	return decodeCron(data)
}

func (p pgCrons) del(ctx context.Context, id string) error {
	_, err := p.st.pool.Exec(ctx, `DELETE FROM `+p.st.crons+` WHERE cron_id = $1`, id)
	return err
}

func (p pgCrons) all(ctx context.Context) ([]*cron, error) {
	rows, err := p.st.pool.Query(ctx, `SELECT record FROM `+p.st.crons)
	if err != nil {
		return nil, fmt.Errorf("crons: %w", err)
	}
	datas, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("crons: %w", err)
	}
	out := make([]*cron, 0, len(datas))
	for _, d := range datas {
		c, err := decodeCron(d)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (p pgCrons) advance(ctx context.Context, c *cron, prev time.Time) (bool, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return false, fmt.Errorf("cron %q: %w", c.ID, err)
	}
	tag, err := p.st.pool.Exec(ctx, `UPDATE `+p.st.crons+` SET record = $2, next_run = $3 WHERE cron_id = $1 AND next_run IS NOT DISTINCT FROM $4`,
		c.ID, data, nullTime(c.Next), nullTime(prev))
	if err != nil {
		return false, fmt.Errorf("cron %q: %w", c.ID, err)
	}
	return tag.RowsAffected() == 1, nil
}
