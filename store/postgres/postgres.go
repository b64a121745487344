package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/internal/migrate"
	"github.com/stategraph/stategraph/store"
)

// migrations are applied in order; append only. "{items}" and the like
// are replaced by the table names.
var migrations = []string{
	// 1: items and their vectors.
	`
CREATE TABLE IF NOT EXISTS {items} (
	ns         text COLLATE "C" NOT NULL,
	key        text COLLATE "C" NOT NULL,
	value      jsonb NOT NULL,
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	expires_at timestamptz,
	ttl_us     bigint,
	PRIMARY KEY (ns, key)
);
CREATE INDEX IF NOT EXISTS {items_updated_idx} ON {items} (updated_at DESC, ns, key);
CREATE INDEX IF NOT EXISTS {items_expires_idx} ON {items} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS {vectors} (
	ns        text COLLATE "C" NOT NULL,
	key       text COLLATE "C" NOT NULL,
	field     text NOT NULL,
	seq       integer NOT NULL,
	embedding bytea NOT NULL,
	PRIMARY KEY (ns, key, field, seq),
	FOREIGN KEY (ns, key) REFERENCES {items} (ns, key) ON DELETE CASCADE
);
`,
}

// Driver is a store.Driver on PostgreSQL.
type Driver struct {
	pool        *pgxpool.Pool
	own         bool
	items, vecs string
	set         migrate.Set
}

var _ store.Driver = (*Driver)(nil)

// Config says where the tables are.
type Config struct {
	// Schema, if set, holds the tables (Migrate creates it); otherwise they
	// resolve through the search_path.
	Schema string
}

// New migrates the store's tables through pool and returns a Store over
// it. The caller keeps the pool.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config, opts ...store.Option) (*store.Store, error) {
	d := newDriver(pool, cfg)
	if err := d.set.Up(ctx, pool); err != nil {
		return nil, fmt.Errorf("postgres store: migrate: %w", err)
	}
	return store.New(d, opts...)
}

// Open connects to dsn, migrates and returns a Store whose Close closes
// the pool.
func Open(ctx context.Context, dsn string, cfg Config, opts ...store.Option) (*store.Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres store: open: %w", err)
	}
	s, err := New(ctx, pool, cfg, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.Driver().(*Driver).own = true
	return s, nil
}

func newDriver(pool *pgxpool.Pool, cfg Config) *Driver {
	name := func(t string) string {
		if cfg.Schema == "" {
			return pgx.Identifier{t}.Sanitize()
		}
		return pgx.Identifier{cfg.Schema, t}.Sanitize()
	}
	d := &Driver{pool: pool, items: name("stategraph_store_items"), vecs: name("stategraph_store_vectors")}
	expand := strings.NewReplacer(
		"{items}", d.items, "{vectors}", d.vecs,
		"{items_updated_idx}", pgx.Identifier{"stategraph_store_items_updated_idx"}.Sanitize(),
		"{items_expires_idx}", pgx.Identifier{"stategraph_store_items_expires_idx"}.Sanitize(),
	)
	d.set = migrate.Set{
		Table:  name("stategraph_store_migrations"),
		Schema: cfg.Schema,
		Lock:   migrate.Key("stategraph/store/postgres", cfg.Schema),
		Steps:  migrations,
		Expand: expand.Replace,
	}
	return d
}

// Close closes the pool if Open made it.
func (d *Driver) Close() error {
	if d.own {
		d.pool.Close()
	}
	return nil
}

// ttlOf is a TTL as the ttl_us column holds it: microseconds, the
// precision of timestamptz.
func ttlOf(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	us := d.Microseconds()
	return &us
}

func expiry(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Put implements store.Driver.
func (d *Driver) Put(ctx context.Context, rec store.Record) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO `+d.items+` AS i (ns, key, value, created_at, updated_at, expires_at, ttl_us)
VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
ON CONFLICT (ns, key) DO UPDATE SET
	value = excluded.value,
	created_at = CASE WHEN i.expires_at IS NOT NULL AND i.expires_at <= excluded.updated_at
		THEN greatest(excluded.updated_at, i.updated_at + interval '1 microsecond') ELSE i.created_at END,
	updated_at = greatest(excluded.updated_at, i.updated_at + interval '1 microsecond'),
	expires_at = excluded.expires_at,
	ttl_us = excluded.ttl_us`,
			rec.Namespace, rec.Key, string(rec.Value), rec.CreatedAt, rec.UpdatedAt, expiry(rec.ExpiresAt), ttlOf(rec.TTL))
		b.Queue(`DELETE FROM `+d.vecs+` WHERE ns = $1 AND key = $2`, rec.Namespace, rec.Key)
		for _, v := range rec.Vectors {
			b.Queue(`INSERT INTO `+d.vecs+` (ns, key, field, seq, embedding) VALUES ($1, $2, $3, $4, $5)`,
				rec.Namespace, rec.Key, v.Field, v.Seq, store.EncodeVector(v.Embedding))
		}
		return tx.SendBatch(ctx, b).Close()
	})
}

const columns = `ns, key, value::text, created_at, updated_at, expires_at, ttl_us`

func scanRecord(row pgx.Row) (*store.Record, error) {
	var rec store.Record
	var value string
	var expires *time.Time
	var ttl *int64
	if err := row.Scan(&rec.Namespace, &rec.Key, &value, &rec.CreatedAt, &rec.UpdatedAt, &expires, &ttl); err != nil {
		return nil, err
	}
	rec.Value = []byte(value)
	rec.CreatedAt, rec.UpdatedAt = rec.CreatedAt.UTC(), rec.UpdatedAt.UTC()
	if expires != nil {
		rec.ExpiresAt = expires.UTC()
	}
	if ttl != nil {
		rec.TTL = time.Duration(*ttl) * time.Microsecond
	}
	return &rec, nil
}

// Get implements store.Driver.
func (d *Driver) Get(ctx context.Context, ns, key string, now time.Time) (*store.Record, error) {
	rec, err := scanRecord(d.pool.QueryRow(ctx, `SELECT `+columns+` FROM `+d.items+`
WHERE ns = $1 AND key = $2 AND (expires_at IS NULL OR expires_at > $3)`, ns, key, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return rec, err
}

// Delete implements store.Driver.
func (d *Driver) Delete(ctx context.Context, ns, key string) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM `+d.items+` WHERE ns = $1 AND key = $2`, ns, key)
	return err
}

// under is the condition of a namespace at or below the prefix $2: equal,
// or in the range of encodings that start with prefix + "." ("/" is the
// byte after "."; the columns collate as bytes).
const under = `($2 = '' OR ns = $2 OR (ns >= $2 || '.' AND ns < $2 || '/'))`

// Scan implements store.Driver, in one repeatable-read transaction when
// it reads vectors too.
func (d *Driver) Scan(ctx context.Context, prefix string, now time.Time, vectors bool) iter.Seq2[*store.Record, error] {
	return func(yield func(*store.Record, error) bool) {
		tx, err := d.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			yield(nil, err)
			return
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
		var vecs map[[2]string][]store.Vector
		if vectors {
			if vecs, err = d.readVectors(ctx, tx, prefix, now); err != nil {
				yield(nil, err)
				return
			}
		}
		rows, err := tx.Query(ctx, `SELECT `+columns+` FROM `+d.items+`
WHERE (expires_at IS NULL OR expires_at > $1) AND `+under+`
ORDER BY updated_at DESC, ns, key`, now, prefix)
		yieldRecords(rows, err, vecs, yield)
	}
}

func (d *Driver) readVectors(ctx context.Context, tx pgx.Tx, prefix string, now time.Time) (map[[2]string][]store.Vector, error) {
	rows, err := tx.Query(ctx, `SELECT v.ns, v.key, v.field, v.seq, v.embedding FROM `+d.vecs+` v
JOIN `+d.items+` i ON i.ns = v.ns AND i.key = v.key
WHERE (i.expires_at IS NULL OR i.expires_at > $1) AND ($2 = '' OR v.ns = $2 OR (v.ns >= $2 || '.' AND v.ns < $2 || '/'))`, now, prefix)
	return collectVectors(rows, err)
}

// collectVectors reads rows of (ns, key, field, seq, embedding) into
// each item's vectors.
func collectVectors(rows pgx.Rows, err error) (map[[2]string][]store.Vector, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]string][]store.Vector{}
	for rows.Next() {
		var ns, key string
		var v store.Vector
		var b []byte
		if err := rows.Scan(&ns, &key, &v.Field, &v.Seq, &b); err != nil {
			return nil, err
		}
		if v.Embedding, err = store.DecodeVector(b); err != nil {
			return nil, fmt.Errorf("item %q key %q field %q: %w", ns, key, v.Field, err)
		}
		k := [2]string{ns, key}
		out[k] = append(out[k], v)
	}
	return out, rows.Err()
}

// Namespaces implements store.Driver.
func (d *Driver) Namespaces(ctx context.Context, now time.Time) ([]string, error) {
	rows, err := d.pool.Query(ctx, `SELECT DISTINCT ns FROM `+d.items+` WHERE expires_at IS NULL OR expires_at > $1 ORDER BY ns`, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Refresh implements store.Driver in one statement.
func (d *Driver) Refresh(ctx context.Context, refs []store.Ref, now time.Time) error {
	nss, keys := make([]string, len(refs)), make([]string, len(refs))
	for i, r := range refs {
		nss[i], keys[i] = r.Namespace, r.Key
	}
	_, err := d.pool.Exec(ctx, `UPDATE `+d.items+` i SET expires_at = $1 + i.ttl_us * interval '1 microsecond'
FROM unnest($2::text[], $3::text[]) AS r(ns, key)
WHERE i.ns = r.ns AND i.key = r.key AND i.ttl_us IS NOT NULL AND i.expires_at > $1`, now, nss, keys)
	return err
}

// DeleteExpired implements store.Driver: one short statement, which skips
// rows another sweeper holds.
func (d *Driver) DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	tag, err := d.pool.Exec(ctx, `DELETE FROM `+d.items+` WHERE (ns, key) IN (
	SELECT ns, key FROM `+d.items+` WHERE expires_at IS NOT NULL AND expires_at <= $1
	LIMIT $2 FOR UPDATE SKIP LOCKED
)`, now, limit)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// Analyze refreshes the planner's statistics of the store's tables
// (ANALYZE). Autovacuum does it as tables grow; call it after a bulk load
// so that the first searches already pick their indexes well.
func (d *Driver) Analyze(ctx context.Context) error {
	_, err := d.pool.Exec(ctx, `ANALYZE `+d.items+`; ANALYZE `+d.vecs)
	return err
}

// yieldRecords yields the records the query found (rows, or its error),
// each with its vectors from vecs, until yield stops or the rows end.
func yieldRecords(rows pgx.Rows, err error, vecs map[[2]string][]store.Vector, yield func(*store.Record, error) bool) {
	if err != nil {
		yield(nil, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		rec, err := scanRecord(rows)
		if err != nil {
			yield(nil, err)
			return
		}
		rec.Vectors = vecs[[2]string{rec.Namespace, rec.Key}]
		if !yield(rec, nil) {
			return
		}
	}
	if err := rows.Err(); err != nil {
		yield(nil, err)
	}
}
