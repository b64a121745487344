// Package postgres is a store.Driver on PostgreSQL (pgx/v5), for many
// processes sharing one long-term memory.
//
// Items live in stategraph_store_items, one row per (namespace, key), the
// value as jsonb; their embeddings in stategraph_store_vectors, one row
// per embedded text, as bytea of little-endian float32
// (store.EncodeVector). Semantic search reads the vectors under the
// prefix and ranks them exactly in Go; nothing depends on pgvector. The
// vectors table is the part pgvector would replace: a later migration
// adds a vector(dims) column filled from the bytea and an HNSW index on
// it, and the driver then orders by the <=> distance in SQL, leaving
// items untouched. Migrations are recorded in stategraph_store_migrations
// under an advisory lock (internal/migrate).
package postgres
