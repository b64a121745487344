// Package riverjob runs retention as a River periodic job, for
// deployments with many worker processes on one PostgreSQL database.
//
// Sweep returns a worker.Option: each worker.Client it is given to adds a
// sweep worker, a queue of its own (Queue) and a periodic job. River
// elects one leader among the clients of a database and only the leader
// enqueues periodic jobs; the job is also unique per period (River's
// UniqueOpts.ByPeriod, periods aligned to multiples of the interval in
// UTC), so a new leader elected mid-period — after a deploy or a crash —
// does not sweep again before the next period starts. Any client may
// work the job; it runs retention.Sweeper.Sweep, which deletes or prunes
// the expired threads in batches, each a short transaction, so writers
// are never blocked for longer than one batch.
//
// With WithStore the same job also deletes the store's expired items
// (store.Store.Sweep).
package riverjob
