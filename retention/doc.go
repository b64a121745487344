// Package retention removes old threads so that checkpoint tables do not
// grow without bound.
//
// A thread expires when its newest checkpoint, in any namespace, is older
// than a TTL. A Sweeper finds expired threads in batches, in thread id
// order with a cursor, and either deletes them or prunes each to its
// newest checkpoints (Policy.Keep, through checkpoint.Pruner). Each batch
// is a short transaction of its own, so writers wait for one batch at
// most; a thread written since it was listed is kept (the delete checks
// again, in its transaction), and a thread a run holds the lease of is
// skipped.
//
// Sweep runs one pass; it is what a scheduled job (a cron, a River
// periodic job) calls. Run sweeps at every tick of a Clock's ticker until
// its context ends, for a process that keeps its own retention.
// Package retention/riverjob runs Sweep as a River periodic job, once a
// period among many worker processes.
//
// A saver takes part by implementing Expirer: checkpoint/memory,
// checkpoint/sqlite and checkpoint/postgres do. `stategraph prune
// --older-than 720h` runs one sweep on a SQLite or PostgreSQL database.
package retention
