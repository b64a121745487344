// Package sqlite is a store.Driver on SQLite (modernc.org/sqlite, no cgo).
//
// Items live in the table store_items, one row per (namespace, key) with
// the value as JSON text and times in Unix nanoseconds; their embeddings
// in store_vectors, one row per embedded text, as little-endian float32
// bytes (store.EncodeVector). Semantic search reads the vectors under the
// prefix and ranks them exactly in Go. Migrations are recorded in
// store_migrations.
//
// Open opens a file of its own. To keep the store in a database shared
// with other tables, open the *sql.DB yourself and call New. (A file
// that checkpoint/sqlite.Open opens must hold only its own tables, so the
// store and the checkpoints are two files unless both are given a shared
// handle.)
package sqlite
