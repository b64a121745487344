package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"syscall"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// OpenSQLite opens the stategraph checkpoint database in the SQLite file
// at path. The file must exist and hold the checkpoint tables: a missing
// path is an error wrapping fs.ErrNotExist, never a new empty database,
// and a file of another program is left untouched.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("database file %q does not exist (give -db the path of a file a stategraph run wrote): %w", path, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("database file %q: %w", path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("database file %q is a directory, not a SQLite file", path)
	}

	// A read-only connection of our own: it checks the schema before
	// sqlite.Open may migrate anything, then lists threads.
	q := url.Values{}
	q.Set("mode", "ro")
	if !writable(path) {
		q.Set("immutable", "1") // as sqlite.ReadOnly does where no -shm can be made; see there
	}
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("database file %q: %w", path, err)
	}
	if err := checkSQLiteSchema(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("database file %q: %w", path, err)
	}
	var opts []sqlite.Option
	if !writable(path) {
		opts = append(opts, sqlite.ReadOnly()) // reading works; delete and prune say the file is read-only
	}
	saver, err := sqlite.Open(path, opts...)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{
		Saver:   saver,
		Lister:  sqliteLister{db: db},
		Leases:  saver, // at this release's schema: Open migrated or checked it
		Name:    path,
		closers: []func() error{db.Close, saver.Close},
	}, nil
}

// writable reports whether this process may write the file at path (a
// read-only file or mount is opened read-only, for reading).
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS)
	}
	f.Close()
	return true
}

// checkSQLiteSchema reports an error unless db has the tables of
// checkpoint/sqlite.
func checkSQLiteSchema(ctx context.Context, db *sql.DB) error {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master
WHERE type = 'table' AND name IN ('checkpoints', 'blobs', 'writes', 'schema_migrations')`).Scan(&n)
	if err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	if n != 4 {
		return errors.New("not a stategraph checkpoint database (it has no checkpoints, blobs, writes and schema_migrations tables)")
	}
	return nil
}

// sqliteLister lists threads and namespaces from the checkpoints table
// of checkpoint/sqlite, whose created_at holds Unix nanoseconds.
type sqliteLister struct{ db *sql.DB }

// sqliteListing counts the checkpoints of each namespace of each thread;
// the primary key (thread_id, ns, id) serves it.
const sqliteListing = `SELECT thread_id, ns, count(*), min(created_at), max(created_at) FROM checkpoints`

func (l sqliteLister) Threads(ctx context.Context) ([]Thread, error) {
	rows, err := l.list(ctx, sqliteListing+` GROUP BY thread_id, ns`)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	return threadsOf(rows), nil
}

func (l sqliteLister) Namespaces(ctx context.Context, thread string) ([]Namespace, error) {
	rows, err := l.list(ctx, sqliteListing+` WHERE thread_id = ? GROUP BY thread_id, ns`, thread)
	if err != nil {
		return nil, fmt.Errorf("list the namespaces of thread %q: %w", thread, err)
	}
	return namespacesOf(rows), nil
}

func (l sqliteLister) list(ctx context.Context, query string, args ...any) ([]nsRow, error) {
	rows, err := l.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nsRow
	for rows.Next() {
		var r nsRow
		var first, last int64
		if err := rows.Scan(&r.thread, &r.ns.Name, &r.ns.Checkpoints, &first, &last); err != nil {
			return nil, err
		}
		r.ns.first, r.ns.Updated = unixNano(first), unixNano(last)
		out = append(out, r)
	}
	return out, rows.Err()
}

// unixNano converts a created_at of checkpoint/sqlite to a time; 0 (not
// recorded) is the zero time.
func unixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
