// Package pgtest gives tests and benchmarks a PostgreSQL database of their
// own: the DSN from STATEGRAPH_POSTGRES_DSN (or a skip that says how to set
// it), pools closed with the test, and fresh schemas dropped with it.
package pgtest
