package worker

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Waiting for a thread. A run that finds its thread busy (strategies
// Enqueue, Interrupt and Rollback) snoozes its River job for the backstop
// interval (WithSnoozeInterval) instead of polling: when a run of the
// thread ends, the statement that ends it makes the job of the thread's
// next pending run due at once and tells River's producers, so exactly
// one waiter wakes, in enqueue order. A wake-up misses a waiter whose
// snooze River has not stored yet (River stores it after Work returns,
// and only while the job is running, so the waiter cannot put itself to
// sleep earlier without racing River); every heartbeat repairs that
// (wakeStranded), and the backstop is the last resort.

// ErrQueueFull: the thread already has as many pending runs as the
// Client allows (WithMaxQueued).
var ErrQueueFull = errors.New("worker: too many runs queued on the thread")

// wakeSQL is a statement's tail that wakes the job of the first pending
// run of the threads that the CTE "ended" (a column thread_id) names, and
// returns one row per woken job. $W is replaced by the parameter number
// of the channel prefix (the schema, or ”).
func (c *Client) wakeSQL(prefixParam string) string {
	return `next AS (
	SELECT DISTINCT ON (r.thread_id) r.job_id FROM ` + c.t.runs + ` r JOIN ended e ON e.thread_id = r.thread_id
	WHERE r.status = 'pending' AND r.job_id IS NOT NULL ORDER BY r.thread_id, r.seq
), woke AS (
	UPDATE ` + c.t.riverJob + ` j SET state = 'available', scheduled_at = now()
	FROM next WHERE j.id = next.job_id AND j.state IN ('scheduled', 'available') AND j.scheduled_at > now()
	RETURNING j.queue
), told AS (
	SELECT count(pg_notify(concat(coalesce(nullif(` + prefixParam + `::text, ''), current_schema()), '.river_insert'), json_build_object('queue', queue)::text)) AS n FROM woke
)`
}

// wakeNext wakes the next pending run of the thread, if it sleeps.
func (c *Client) wakeNext(ctx context.Context, tx pgx.Tx, thread string) error {
	_, err := tx.Exec(ctx, `WITH ended AS (SELECT $1::text AS thread_id), `+c.wakeSQL("$2")+` SELECT n FROM told`, thread, c.schema)
	return err
}

// wakeStranded wakes the sleeping head of every thread of the queue: a
// pending run that sleeps though no run of its thread runs or is ahead of
// it (its wake-up came before River stored its snooze).
func (c *Client) wakeStranded(ctx context.Context) error {
	_, err := c.pool.Exec(ctx, `WITH heads AS (
	SELECT DISTINCT ON (thread_id) status, job_id FROM `+c.t.runs+` WHERE status IN ('pending', 'running')
	ORDER BY thread_id, (status = 'running') DESC, seq
), woke AS (
	UPDATE `+c.t.riverJob+` j SET state = 'available', scheduled_at = now()
	FROM heads h WHERE h.status = 'pending' AND j.id = h.job_id AND j.state IN ('scheduled', 'available') AND j.queue = $1
	AND j.scheduled_at > now()
	RETURNING j.queue
)
SELECT count(pg_notify(concat(coalesce(nullif($2::text, ''), current_schema()), '.river_insert'), json_build_object('queue', queue)::text)) FROM woke`, c.queue, c.schema)
	return err
}
