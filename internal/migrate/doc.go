// Package migrate applies the versioned schema migrations of the packages
// of this module that keep tables in PostgreSQL (checkpoint/postgres,
// store/postgres and worker), so that the loop that applies them is
// written once. Its sibling sqlmigrate does the same for SQLite through
// database/sql, without the PostgreSQL driver this package imports.
//
// A Set names its migrations (ordered SQL steps: step i brings the tables
// to version i+1), the table that records the applied versions (version
// integer primary key, applied_at timestamptz), and the key of the
// advisory lock that serialises concurrent callers. Set.Up applies the
// steps the table does not list yet, in one transaction that first takes
// that lock (pg_advisory_xact_lock), so it is idempotent and safe when
// several processes call it at once. Set.Version reads the version a
// database is at, for a caller that refuses to start on an older one.
//
// SessionLock holds the same kind of lock across several transactions on
// one connection, for a caller that must run other migrations (River's)
// under it first. Key derives a lock key from a package's scope and the
// PostgreSQL schema, the same for every process and release.
package migrate
