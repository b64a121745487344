package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// notice is the payload of a run's notifications. Followers treat a
// notification as a hint to read the run again; the payload is for other
// listeners.
type notice struct {
	Status       Status `json:"status,omitempty"`
	CheckpointID string `json:"checkpoint_id,omitempty"`
	Step         *int   `json:"step,omitempty"`
}

// channel is the LISTEN/NOTIFY channel of a run: derived from the schema
// and the run id, and short enough for PostgreSQL's 63-byte names.
func (c *Client) channel(runID string) string {
	sum := sha256.Sum256([]byte(c.schema + "\x00" + runID))
	return "stategraph_run_" + hex.EncodeToString(sum[:16])
}

// notify sends a run's notification if someone follows the run; inside a
// transaction it is delivered when the transaction commits.
func (c *Client) notify(ctx context.Context, tx pgx.Tx, runID string, n notice) error {
	payload, _ := json.Marshal(n)
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2) WHERE "+c.followedSQL("$3"), c.channel(runID), string(payload), runID)
	return err
}

// followedSQL is the condition that someone follows the run whose id is
// the parameter: a notification is sent only then. This matters beyond
// the statement: PostgreSQL serializes the commits of all transactions
// that notify, across the whole server, so a notification nobody listens
// to slows every other writer down.
func (c *Client) followedSQL(param string) string {
	return `EXISTS (SELECT 1 FROM ` + c.t.followers + ` WHERE run_id = ` + param + ` AND expires_at > now())`
}

// notifier sends a run's checkpoint notifications off the run's path, and
// only while someone follows the run (Follow records itself in
// stategraph_followers; a worker reads that when it takes the run and at
// every heartbeat): the newest one waits while one is being sent, older
// ones are dropped (followers re-read the run on any notification).
type notifier struct {
	c     *Client
	runID string
	ch    chan notice
	wg    sync.WaitGroup
}

func (c *Client) checkpointNotifier(ctx context.Context, runID string) *notifier {
	n := &notifier{c: c, runID: runID, ch: make(chan notice, 1)}
	ctx = context.WithoutCancel(ctx)
	n.wg.Go(func() {
		ch := c.channel(runID)
		for nt := range n.ch {
			payload, _ := json.Marshal(nt)
			c.pool.Exec(ctx, "SELECT pg_notify($1, $2)", ch, string(payload)) //nolint:errcheck // best effort: followers poll too
		}
	})
	return n
}

func (n *notifier) send(cfg checkpoint.Config, md checkpoint.Metadata) {
	if !n.c.isFollowed(n.runID) {
		return // nobody listens: followers poll, and the final status is always notified
	}
	step := md.Step
	nt := notice{CheckpointID: cfg.CheckpointID, Step: &step}
	for {
		select {
		case n.ch <- nt:
			return
		default:
		}
		select {
		case <-n.ch: // drop the older one
		default:
		}
	}
}

func (n *notifier) close() {
	close(n.ch)
	n.wg.Wait()
}
