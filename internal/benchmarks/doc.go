// Package benchmarks holds the whole-runtime benchmarks of
// docs/performance.md (W2, W3, W5 and W6 on the memory saver, SQLite and
// PostgreSQL, and a cold-process resume), written against the public API
// as a user would write them, and the raw one-row commit each durable
// figure is compared with.
//
// A durable step cannot cost less than one commit of the store it is
// written to: one write to SQLite's write-ahead log, or one round trip
// with a commit to PostgreSQL. So every durable benchmark here runs beside
// a raw commit on the same store, in the same run: RawSQLite and
// RawPostgres insert one 600-byte row per transaction, and each durable
// benchmark reports x-raw, its time per step divided by the time of a raw
// commit, the raw commits run off the clock between its iterations (as
// many as it made steps). Ratios stay meaningful on a loaded machine where
// absolute times do not.
//
// Nothing here is imported by the shipped packages; the package exists
// for its benchmarks:
//
//	go test -run '^$' -bench . -benchmem ./internal/benchmarks/
//	STATEGRAPH_POSTGRES_DSN=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	    go test -run '^$' -bench Postgres -benchmem ./internal/benchmarks/
package benchmarks
