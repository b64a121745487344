package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/stategraph/stategraph/checkpoint"
)

// Synchronous is SQLite's synchronous setting for a WAL database: how hard
// a commit works to reach the disk.
type Synchronous int

const (
	// SyncNormal (the default) makes a commit durable against a crash of
	// the process; a power loss or OS crash may roll back the last
	// commits, but never corrupts the database.
	SyncNormal Synchronous = iota
	// SyncFull makes a commit durable against a power loss: every commit
	// waits for an fsync of the write-ahead log.
	SyncFull
)

// String returns the pragma value, "NORMAL" or "FULL".
func (s Synchronous) String() string {
	if s == SyncFull {
		return "FULL"
	}
	return "NORMAL"
}

// Option configures Open.
type Option func(*options)

type options struct {
	sync        Synchronous
	busyTimeout time.Duration
	readers     int
	readOnly    bool
	leaseNow    func() time.Time // WithLeaseClock
}

// WithSynchronous sets the durability of a commit (SyncNormal by default).
func WithSynchronous(s Synchronous) Option { return func(o *options) { o.sync = s } }

// WithBusyTimeout sets how long a writer waits for another connection (of
// this or another process) to release the database's write lock before it
// fails with SQLITE_BUSY. The default is 5 seconds.
func WithBusyTimeout(d time.Duration) Option { return func(o *options) { o.busyTimeout = d } }

// ReadOnly opens the database for reading only, as a tool that inspects a
// file it may not write does (a read-only file, mount or copy): nothing is
// migrated or written, the journal mode is left as it is, and any write
// fails with SQLite's read-only error. The database must already be at
// this release's schema version: an older one is an error saying to open
// it once for writing, a newer one a *migrate.NewerError.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// WithMaxReaders caps the connections used for reads (default: the larger
// of 4 and GOMAXPROCS). Writes always use one connection.
func WithMaxReaders(n int) Option { return func(o *options) { o.readers = n } }

// Saver is a checkpoint.Saver that stores checkpoints in one SQLite file.
// It is safe for concurrent use. It also implements checkpoint.Copier and
// checkpoint.Pruner.
type Saver struct {
	rdb, wdb *sql.DB
	// own is set when Open made the handles, so Close closes them.
	own bool
	// lockFirst is set when a write transaction is not known to start
	// with BEGIN IMMEDIATE (a handle from New): it then starts with a
	// statement that takes the write lock before anything is read.
	lockFirst bool
	// wsem admits one writer of this Saver at a time, so writers in this
	// process queue in Go rather than in SQLite's busy handler.
	wsem chan struct{}
	st   stmts
	// direct is Put's way on the write connection of a Saver Open made.
	direct direct
	// busyTimeout is how long a writer of a Saver Open made waits for
	// the write lock (see retryBusy).
	busyTimeout time.Duration
	// leases is what this Saver knows of the leases it took (lease.go).
	leases leaseState
}

var (
	_ checkpoint.Saver  = (*Saver)(nil)
	_ checkpoint.Copier = (*Saver)(nil)
	_ checkpoint.Pruner = (*Saver)(nil)
)

// Open opens (creating it if needed) the SQLite database at path in WAL
// mode, applies any pending schema migrations and returns a Saver. Close
// it when done. A SQLite file of another program (tables that are not
// this package's) is refused and left as it was; so is a database a newer
// release migrated (a *migrate.NewerError says which versions). A file SQLite finds damaged is an error wrapping
// checkpoint.ErrCorrupt, here or in the call that first reads the damage.
func Open(path string, opts ...Option) (*Saver, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: open %q: want the path of a database file", path)
	}
	o := options{sync: SyncNormal, busyTimeout: 5 * time.Second, readers: max(4, runtime.GOMAXPROCS(0))}
	for _, opt := range opts {
		opt(&o)
	}
	if o.readers < 1 {
		o.readers = 1
	}
	if o.sync != SyncNormal && o.sync != SyncFull {
		return nil, fmt.Errorf("sqlite: open %q: unknown synchronous level %d", path, int(o.sync))
	}

	if !o.readOnly {
		if err := checkWritable(path); err != nil {
			return nil, fmt.Errorf("sqlite: open %q: %w (sqlite.ReadOnly opens it for reading)", path, err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("sqlite: open %q read-only: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(o.busyTimeout.Milliseconds(), 10)+")")
	if o.readOnly {
		q.Set("mode", "ro")
		if immutable(path) {
			q.Set("immutable", "1")
		}
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath()

	// The write connection sets the journal mode (kept in the file),
	// synchronous and foreign keys, which only writes need: a read
	// connection opens with none of them (each is a statement run at
	// connect).
	wq := cloneValues(q)
	if !o.readOnly {
		wq.Add("_pragma", "journal_mode(WAL)")
		wq.Add("_pragma", "synchronous("+o.sync.String()+")")
	}
	wq.Add("_pragma", "foreign_keys(1)")
	wq.Set("_txlock", "immediate")
	wdb, err := sql.Open("sqlite", base+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, markCorrupt(err))
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	rq := cloneValues(q)
	rq.Set("_query_only", "1")
	rdb, err := sql.Open("sqlite", base+"?"+rq.Encode())
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, markCorrupt(err))
	}
	rdb.SetMaxOpenConns(o.readers)
	rdb.SetMaxIdleConns(o.readers)
	rdb.SetConnMaxLifetime(0)
	rdb.SetConnMaxIdleTime(0)
	// Connections open as they are first used: a database this release
	// migrated, already in WAL mode, is checked on a read connection and
	// the write connection waits for the first write.
	ctx := context.Background()
	if err := openSchema(ctx, path, rdb, wdb, o.readOnly); err != nil {
		rdb.Close()
		wdb.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, markCorrupt(explainOpen(path, err)))
	}

	s := &Saver{rdb: rdb, wdb: wdb, own: true, wsem: make(chan struct{}, 1), busyTimeout: o.busyTimeout}
	s.leases.now = o.leaseNow
	if err := s.st.prepare(ctx, rdb, wdb); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, schemaMismatch(markCorrupt(err)))
	}
	return s, nil
}

// New returns a Saver on a database handle the caller opened with the
// "sqlite" driver (modernc.org/sqlite), after applying any pending schema
// migrations. Reads and writes share db; writes start by taking SQLite's
// write lock, so several processes or handles on one file stay correct.
// For WAL, busy_timeout and foreign keys, put them in db's DSN, e.g.
// "file:x.db?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)". Close
// releases the Saver's statements but leaves db open.
func New(db *sql.DB) (*Saver, error) {
	ctx := context.Background()
	if err := migrate(ctx, db, true); err != nil {
		return nil, fmt.Errorf("sqlite: %w", markCorrupt(err))
	}
	s := &Saver{rdb: db, wdb: db, lockFirst: true, wsem: make(chan struct{}, 1)}
	// A handle the caller opened is already open for writing: its write
	// statements are prepared now, as a writer expects, not at the first
	// write.
	err := s.st.prepare(ctx, db, db)
	if err == nil {
		err = s.st.prepareWrites(ctx)
	}
	if err != nil {
		s.st.close()
		return nil, fmt.Errorf("sqlite: %w", schemaMismatch(markCorrupt(err)))
	}
	return s, nil
}

// Close releases the Saver's statements and, for a Saver made by Open,
// closes the database. In-flight calls should have returned first.
func (s *Saver) Close() error {
	var err error
	if s.own {
		err = s.direct.closeOn(s.wdb)
	}
	err = errors.Join(err, s.st.close())
	if s.own {
		err = errors.Join(err, s.rdb.Close(), s.wdb.Close())
	}
	return err
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// write runs fn in a write transaction: one writer of this Saver at a time,
// holding SQLite's write lock from the first statement, so that what fn
// reads cannot change before it commits.
func (s *Saver) write(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	if err := s.st.prepareWrites(ctx); err != nil {
		return schemaMismatch(markCorrupt(err)) // as Open does
	}
	var tx *sql.Tx
	if s.own {
		err = retryBusy(ctx, s.busyTimeout, func() (err error) {
			tx, err = s.wdb.BeginTx(ctx, nil)
			return err
		})
	} else {
		tx, err = s.wdb.BeginTx(ctx, nil)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if s.lockFirst {
		if _, err := tx.StmtContext(ctx, s.st.lock).ExecContext(ctx); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// read runs fn in a read transaction, so that the rows it reads in several
// queries come from one snapshot of the database.
func (s *Saver) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.st.warm(ctx); err != nil {
		return err
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to lose
	return fn(tx)
}
