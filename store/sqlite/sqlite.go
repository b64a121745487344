package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/stategraph/stategraph/internal/migrate/sqlmigrate"
	"github.com/stategraph/stategraph/store"
)

// steps are the schema changes, in order; append only.
var steps = []string{
	// 1: items and their vectors. The vectors table is apart so that a
	// later index (sqlite-vec, or pgvector's twin in PostgreSQL) replaces
	// it without touching the items.
	`
CREATE TABLE store_items (
	ns         TEXT    NOT NULL,
	key        TEXT    NOT NULL,
	value      TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	expires_at INTEGER,
	ttl        INTEGER,
	PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX store_items_updated ON store_items (updated_at DESC, ns, key);
CREATE INDEX store_items_expires ON store_items (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE store_vectors (
	ns        TEXT    NOT NULL,
	key       TEXT    NOT NULL,
	field     TEXT    NOT NULL,
	seq       INTEGER NOT NULL,
	embedding BLOB    NOT NULL,
	PRIMARY KEY (ns, key, field, seq),
	FOREIGN KEY (ns, key) REFERENCES store_items (ns, key) ON DELETE CASCADE
) WITHOUT ROWID;
`,
}

// Driver is a store.Driver on a SQLite database.
type Driver struct {
	db  *sql.DB
	own bool
	// puts counts this process's Puts; at analyzeAt (1,000, then each
	// doubling) a Put refreshes the planner's statistics (see analyze).
	puts, analyzeAt atomic.Int64
}

// firstAnalyze is the Put after which the statistics are first gathered.
const firstAnalyze = 1000

var _ store.Driver = (*Driver)(nil)

// Open opens (creating it if needed) the SQLite file at path in WAL mode,
// migrates it and returns a Store over it; the Store's Close closes the
// file.
func Open(ctx context.Context, path string, opts ...store.Option) (*store.Store, error) {
	if path == "" {
		return nil, errors.New("sqlite store: open: empty path")
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite store: open %q: %w", path, err)
	}
	d, err := newDriver(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite store: open %q: %w", path, err)
	}
	d.own = true
	return store.New(d, opts...)
}

// New migrates the store's tables in db and returns a Store over it. The
// caller keeps db (Close does not close it); it must have foreign keys on
// (_pragma=foreign_keys(1)) so a deleted item takes its vectors along.
func New(ctx context.Context, db *sql.DB, opts ...store.Option) (*store.Store, error) {
	d, err := newDriver(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	return store.New(d, opts...)
}

func newDriver(ctx context.Context, db *sql.DB) (*Driver, error) {
	set := sqlmigrate.Set{Table: "store_migrations", Steps: steps}
	if err := set.Up(ctx, db); err != nil {
		return nil, err
	}
	d := &Driver{db: db}
	d.analyzeAt.Store(firstAnalyze)
	return d, nil
}

// Analyze gathers the statistics SQLite's planner chooses indexes by
// (ANALYZE). Without them it cannot tell a prefix that holds every item
// from one that holds a few, and sorts the whole prefix to return the
// newest ten; with them it walks the updated_at index when the prefix is
// broad. Put calls it after this process's 1,000th Put and at each
// doubling; call it after a bulk load, or on a database filled by another
// program.
func (d *Driver) Analyze(ctx context.Context) error {
	_, err := d.db.ExecContext(ctx, `ANALYZE store_items`)
	return err
}

// Close closes the database if Open opened it.
func (d *Driver) Close() error {
	if d.own {
		return d.db.Close()
	}
	return nil
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func ttlOf(d time.Duration) any {
	if d <= 0 {
		return nil
	}
	return int64(d)
}

func expiry(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// Put implements store.Driver.
func (d *Driver) Put(ctx context.Context, rec store.Record) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: nothing to undo
	if _, err := tx.ExecContext(ctx, `INSERT INTO store_items (ns, key, value, created_at, updated_at, expires_at, ttl)
VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)
ON CONFLICT (ns, key) DO UPDATE SET
	value = excluded.value,
	created_at = CASE WHEN store_items.expires_at IS NOT NULL AND store_items.expires_at <= ?4
		THEN max(excluded.updated_at, store_items.updated_at + 1000) ELSE store_items.created_at END,
	updated_at = max(excluded.updated_at, store_items.updated_at + 1000),
	expires_at = excluded.expires_at,
	ttl = excluded.ttl`,
		rec.Namespace, rec.Key, string(rec.Value), nanos(rec.UpdatedAt), expiry(rec.ExpiresAt), ttlOf(rec.TTL)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM store_vectors WHERE ns = ? AND key = ?`, rec.Namespace, rec.Key); err != nil {
		return err
	}
	for _, v := range rec.Vectors {
		if _, err := tx.ExecContext(ctx, `INSERT INTO store_vectors (ns, key, field, seq, embedding) VALUES (?, ?, ?, ?, ?)`,
			rec.Namespace, rec.Key, v.Field, v.Seq, store.EncodeVector(v.Embedding)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if n := d.puts.Add(1); n == d.analyzeAt.Load() {
		d.analyzeAt.Store(2 * n)
		// Statistics are an optimisation: an error leaves the old ones,
		// and is not the Put's.
		d.Analyze(ctx) //nolint:errcheck // see above
	}
	return nil
}

const columns = `ns, key, value, created_at, updated_at, expires_at, ttl`

// alive is the condition of a record not expired at ?1.
const alive = `(expires_at IS NULL OR expires_at > ?1)`

func scanRecord(row interface{ Scan(...any) error }) (*store.Record, error) {
	var rec store.Record
	var value string
	var created, updated int64
	var expires, ttl sql.NullInt64
	if err := row.Scan(&rec.Namespace, &rec.Key, &value, &created, &updated, &expires, &ttl); err != nil {
		return nil, err
	}
	rec.Value = []byte(value)
	rec.CreatedAt, rec.UpdatedAt = fromNanos(created), fromNanos(updated)
	if expires.Valid {
		rec.ExpiresAt = fromNanos(expires.Int64)
	}
	rec.TTL = time.Duration(ttl.Int64)
	return &rec, nil
}

// Get implements store.Driver.
func (d *Driver) Get(ctx context.Context, ns, key string, now time.Time) (*store.Record, error) {
	rec, err := scanRecord(d.db.QueryRowContext(ctx, `SELECT `+columns+` FROM store_items WHERE ns = ?2 AND key = ?3 AND `+alive, nanos(now), ns, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return rec, err
}

// Delete implements store.Driver.
func (d *Driver) Delete(ctx context.Context, ns, key string) error {
	_, err := d.db.ExecContext(ctx, `DELETE FROM store_items WHERE ns = ? AND key = ?`, ns, key)
	return err
}

// under is the condition of a namespace at or below the prefix ?2: equal,
// or in the range of encodings that start with prefix + "." ("/" is the
// byte after ".").
const under = `(?2 = '' OR ns = ?2 OR (ns >= ?2 || '.' AND ns < ?2 || '/'))`

// Scan implements store.Driver. With vectors it reads the prefix's
// vectors first, then the items, in one read transaction.
func (d *Driver) Scan(ctx context.Context, prefix string, now time.Time, vectors bool) iter.Seq2[*store.Record, error] {
	return func(yield func(*store.Record, error) bool) {
		tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			yield(nil, err)
			return
		}
		defer tx.Rollback() //nolint:errcheck // read only
		var vecs map[[2]string][]store.Vector
		if vectors {
			if vecs, err = readVectors(ctx, tx, prefix, now); err != nil {
				yield(nil, err)
				return
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+columns+` FROM store_items WHERE `+alive+` AND `+under+`
ORDER BY updated_at DESC, ns, key`, nanos(now), prefix)
		yieldRecords(rows, err, vecs, yield)
	}
}

func readVectors(ctx context.Context, tx *sql.Tx, prefix string, now time.Time) (map[[2]string][]store.Vector, error) {
	return collectVectors(tx.QueryContext(ctx, `SELECT v.ns, v.key, v.field, v.seq, v.embedding FROM store_vectors v
JOIN store_items i ON i.ns = v.ns AND i.key = v.key
WHERE (i.expires_at IS NULL OR i.expires_at > ?1) AND (?2 = '' OR v.ns = ?2 OR (v.ns >= ?2 || '.' AND v.ns < ?2 || '/'))`, nanos(now), prefix))
}

// collectVectors reads rows of (ns, key, field, seq, embedding) into
// each item's vectors.
func collectVectors(rows *sql.Rows, err error) (map[[2]string][]store.Vector, error) {
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
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT ns FROM store_items WHERE `+alive+` ORDER BY ns`, nanos(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			return nil, err
		}
		out = append(out, ns)
	}
	return out, rows.Err()
}

// Refresh implements store.Driver, in one transaction.
func (d *Driver) Refresh(ctx context.Context, refs []store.Ref, now time.Time) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: nothing to undo
	for _, r := range refs {
		if _, err := tx.ExecContext(ctx, `UPDATE store_items SET expires_at = ?1 + ttl
WHERE ns = ?2 AND key = ?3 AND ttl IS NOT NULL AND expires_at > ?1`, nanos(now), r.Namespace, r.Key); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// DeleteExpired implements store.Driver: one short transaction.
func (d *Driver) DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	res, err := d.db.ExecContext(ctx, `DELETE FROM store_items WHERE (ns, key) IN (
	SELECT ns, key FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2
)`, nanos(now), limit)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// yieldRecords yields the records the query found (rows, or its error),
// each with its vectors from vecs, until yield stops or the rows end.
func yieldRecords(rows *sql.Rows, err error, vecs map[[2]string][]store.Vector, yield func(*store.Record, error) bool) {
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
