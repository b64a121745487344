package store

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// connectTimeout bounds how long OpenPostgres waits for the server.
const connectTimeout = 10 * time.Second

// OpenPostgres opens the stategraph checkpoint tables in the PostgreSQL
// database named by dsn, in schema (or, when schema is "", wherever the
// connection's search_path finds them). It does not migrate: a database
// without the tables is an error that says so.
func OpenPostgres(ctx context.Context, dsn, schema string) (*Store, error) {
	name := RedactDSN(dsn)
	if _, err := pgxpool.ParseConfig(dsn); err != nil {
		return nil, fmt.Errorf("postgres DSN %q is not valid (want postgres://user@host:port/db or key=value pairs): %v", name, redactErr(err, dsn))
	}
	octx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	var opts []postgres.Option
	if schema != "" {
		opts = append(opts, postgres.WithSchema(schema))
	}
	saver, err := postgres.Open(octx, dsn, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to postgres DSN %q: %v", name, redactErr(err, dsn))
	}
	table := pgx.Identifier{"stategraph_checkpoints"}
	if schema != "" {
		table = pgx.Identifier{schema, "stategraph_checkpoints"}
	}
	var found *string
	if err := saver.Pool().QueryRow(octx, "SELECT to_regclass($1)::text", table.Sanitize()).Scan(&found); err != nil {
		saver.Close()
		return nil, fmt.Errorf("postgres DSN %q: %v", name, redactErr(err, dsn))
	}
	if found == nil {
		saver.Close()
		where := "on the search_path"
		if schema != "" {
			where = fmt.Sprintf("in schema %q", schema)
		}
		return nil, fmt.Errorf("postgres DSN %q: no stategraph checkpoint tables %s (wrong database or -schema? the application creates them with postgres.Saver.Migrate)", name, where)
	}
	st := &Store{
		Saver:   saver,
		Lister:  pgLister{pool: saver.Pool(), table: table.Sanitize()},
		Name:    name,
		closers: []func() error{saver.Close},
	}
	leases := pgx.Identifier{"stategraph_leases"}
	if schema != "" {
		leases = pgx.Identifier{schema, "stategraph_leases"}
	}
	if err := saver.Pool().QueryRow(octx, "SELECT to_regclass($1)::text", leases.Sanitize()).Scan(&found); err != nil {
		saver.Close()
		return nil, fmt.Errorf("postgres DSN %q: %v", name, redactErr(err, dsn))
	}
	if found != nil {
		st.Leases = saver
	}
	return st, nil
}

// pgLister lists threads and namespaces from the stategraph_checkpoints
// table of checkpoint/postgres.
type pgLister struct {
	pool  *pgxpool.Pool
	table string
}

// listing counts the checkpoints of each namespace of each thread; the
// primary key (thread_id, ns, id) serves it.
func (l pgLister) listing() string {
	return `SELECT thread_id, ns, count(*), min(created_at), max(created_at) FROM ` + l.table
}

func (l pgLister) Threads(ctx context.Context) ([]Thread, error) {
	rows, err := l.list(ctx, l.listing()+` GROUP BY thread_id, ns`)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	return threadsOf(rows), nil
}

func (l pgLister) Namespaces(ctx context.Context, thread string) ([]Namespace, error) {
	rows, err := l.list(ctx, l.listing()+` WHERE thread_id = $1 GROUP BY thread_id, ns`, thread)
	if err != nil {
		return nil, fmt.Errorf("list the namespaces of thread %q: %w", thread, err)
	}
	return namespacesOf(rows), nil
}

func (l pgLister) list(ctx context.Context, query string, args ...any) ([]nsRow, error) {
	rows, err := l.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (nsRow, error) {
		var r nsRow
		err := row.Scan(&r.thread, &r.ns.Name, &r.ns.Checkpoints, &r.ns.first, &r.ns.Updated)
		r.ns.first, r.ns.Updated = r.ns.first.UTC(), r.ns.Updated.UTC()
		return r, err
	})
}

var urlPassword = regexp.MustCompile(`^(postgres(?:ql)?://[^:/@]*:)[^@]*@`)

var kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// RedactDSN hides the password of a PostgreSQL URL or key=value DSN, so
// that it can appear in a message.
func RedactDSN(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			q := u.Query()
			if q.Has("password") {
				q.Set("password", "xxxxx")
				u.RawQuery = q.Encode()
			}
			return u.Redacted()
		}
		return urlPassword.ReplaceAllString(dsn, "${1}xxxxx@")
	}
	return kvPassword.ReplaceAllString(dsn, "${1}xxxxx")
}

// redactErr returns err's message with any password of dsn hidden.
func redactErr(err error, dsn string) string {
	msg := err.Error()
	if u, perr := url.Parse(dsn); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		pw := strings.Trim(m[2], "'")
		if pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}
