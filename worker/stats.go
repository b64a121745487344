package worker

import (
	"context"
	"fmt"
)

// QueueStats is how many runs of the database wait for a worker and how
// many are executing, over every queue and process.
type QueueStats struct {
	// Pending counts runs enqueued and not started (or re-queued after a
	// crash or a takeover).
	Pending int64
	// Running counts runs a worker is executing.
	Running int64
}

// QueueStats reads the number of pending and running runs (one query over
// the runs table's index of active runs). Metrics read it as the queue's
// depth: see package telemetry/workermetrics.
func (c *Client) QueueStats(ctx context.Context) (QueueStats, error) {
	var st QueueStats
	err := c.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'running')
FROM `+c.t.runs+` WHERE status IN ('pending', 'running')`).Scan(&st.Pending, &st.Running)
	if err != nil {
		return QueueStats{}, fmt.Errorf("worker: queue stats: %w", err)
	}
	return st, nil
}

// Takeovers returns how many runs this Client has taken over from silent
// workers since it was made: re-queued so that a live worker resumes them
// from their last checkpoint (see docs/deployment.md, "Liveness").
func (c *Client) Takeovers() int64 { return c.live.takeovers.Load() }
