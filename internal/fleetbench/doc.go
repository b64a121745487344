// Command fleetbench measures worker processes as a deployment runs them:
// N processes of the worker package against one PostgreSQL, M queued runs
// of a 10-step graph whose nodes each wait 2 ms (an I/O-bound node: a
// model or a tool call), a durable checkpoint per step. For each process
// count it reports the drain rate (runs/s), the statements and the server
// execution time per run (pg_stat_statements), PostgreSQL's CPU per run
// (from /proc, for a server on this machine), the pool waits of the
// workers, the step overhead's percentiles (the time from one node's end
// to the next node's start: the checkpoint write and the scheduling) and
// the most connections the server had busy at once.
//
//	go run ./internal/fleetbench -dsn 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable' -procs 1,2,4,8 -runs 1000
//
// With -fleet n the fleet executes n runs at once whatever its size: each
// of N processes gets n/N workers and a pool of worker.PoolSize of them,
// the sizing docs/deployment.md advises. With -limit n every process
// keeps -workers but the fleet is bounded by worker.WithFleetLimit(n),
// enforced across the processes, and a pool of worker.PoolSize of
// min(-workers, n).
//
// The figures of docs/performance.md ("Workers across processes") come
// from it. pg_stat_statements must be in shared_preload_libraries for the
// statement figures; without it fleetbench says so and counts
// transactions from pg_stat_database instead. The CPU figure reads the
// server's processes from /proc: it needs the server on this machine and
// the permission to read them (root, or the server's user). Each process
// count runs in a fresh schema, dropped at its end.
//
// The process re-executes itself as the workers (-worker), which print
// their step samples and pool statistics as JSON when the parent closes
// their standard input.
package main
