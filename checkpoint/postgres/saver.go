package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/migrate"
)

// Saver is a checkpoint.Saver on PostgreSQL. It is safe for concurrent use
// by many goroutines, and many Savers in many processes may share one
// database: the compare-and-set of Put holds across all of them.
type Saver struct {
	pool   *pgxpool.Pool
	owned  bool // Open made the pool; Close closes it
	schema string
	t      tables
	q      queries
	lock   int64 // advisory lock key of Migrate
	// writeTimeout bounds the statement of Put and PutWrites (see
	// WithWriteTimeout).
	writeTimeout time.Duration
	pages        sync.Map // pageKey → the page statement (pageSQL)
}

var (
	_ checkpoint.Saver  = (*Saver)(nil)
	_ checkpoint.Copier = (*Saver)(nil)
	_ checkpoint.Pruner = (*Saver)(nil)
)

// Option configures a Saver.
type Option func(*Saver)

// WithSchema puts the tables in the named PostgreSQL schema, which Migrate
// creates if needed. Without it, table names are unqualified and resolve
// through the connection's search_path (usually "public").
func WithSchema(name string) Option {
	return func(s *Saver) { s.schema = name }
}

// New returns a Saver that uses pool. The caller keeps ownership of the
// pool: Close does not close it. Call Migrate once before first use.
func New(pool *pgxpool.Pool, opts ...Option) *Saver {
	s := &Saver{pool: pool}
	for _, o := range opts {
		o(s)
	}
	s.t = newTables(s.schema)
	s.q = newQueries(s.t)
	s.q.values = s.valuesSQL()
	s.lock = migrate.Key("stategraph/checkpoint/postgres", s.schema)
	return s
}

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string, as pgxpool.ParseConfig accepts) and returns a Saver
// that owns the connection pool; Close closes it. It checks the
// connection by making the pool's first one (which the next call then
// uses; no round trip besides the connection's own) but does not
// migrate: call Migrate.
func Open(ctx context.Context, dsn string, opts ...Option) (*Saver, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	conn.Release()
	s := New(pool, opts...)
	s.owned = true
	return s, nil
}

// Close closes the connection pool if Open made it; for a Saver made by
// New it does nothing. It always returns nil.
func (s *Saver) Close() error {
	if s.owned {
		s.pool.Close()
	}
	return nil
}

// Pool returns the connection pool the Saver uses.
func (s *Saver) Pool() *pgxpool.Pool { return s.pool }

// tables holds the quoted, possibly schema-qualified, table names.
type tables struct {
	migrations, heads, checkpoints, blobs, writes, leases string
}

func newTables(schema string) tables {
	name := func(table string) string {
		if schema == "" {
			return pgx.Identifier{table}.Sanitize()
		}
		return pgx.Identifier{schema, table}.Sanitize()
	}
	return tables{
		migrations:  name("stategraph_migrations"),
		heads:       name("stategraph_heads"),
		checkpoints: name("stategraph_checkpoints"),
		blobs:       name("stategraph_blobs"),
		writes:      name("stategraph_writes"),
		leases:      name("stategraph_leases"),
	}
}
