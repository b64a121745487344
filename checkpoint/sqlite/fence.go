package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Fencer = (*Saver)(nil)

// FencesWrites marks the saver as a checkpoint.Fencer: Put and PutWrites
// store nothing when their context is fenced (checkpoint.WithFence) by a
// lease of this saver on their thread that is no longer held. The check
// runs in the write's own transaction, which holds the database's write
// lock, so no takeover of the lease goes between it and the commit.
func (s *Saver) FencesWrites() {}

// sqlFence finds the lease row a fenced write needs: its thread's, with
// the writer's token (a lease taken over has another token; a released
// one has no row). An expired lease that nobody took still fences in, as
// Renew would still renew it.
const sqlFence = `SELECT 1 FROM leases WHERE thread_id = ? AND token = ?`

// fenceOf returns the lease of s that fences ctx's writes of thread, or
// nil when there is none.
func (s *Saver) fenceOf(ctx context.Context, thread string) *sqlLease {
	l, ok := checkpoint.FenceOf(ctx).(*sqlLease)
	if !ok || l.s != s || l.info.Thread != thread {
		return nil
	}
	return l
}

// lost is the error of a write fenced by l, which is no longer held.
func (l *sqlLease) lost() error {
	return checkpoint.FenceLostError(l.info.Thread, l.Info().Holder)
}

// checkFenceTx checks, in tx, that l is still held (nil l: no fence):
// after a fenced statement changed nothing, it tells a lost lease from
// the statement's other reasons.
func checkFenceTx(ctx context.Context, tx *sql.Tx, l *sqlLease) error {
	if l == nil {
		return nil
	}
	var one int
	err := tx.QueryRowContext(ctx, sqlFence, l.info.Thread, l.token).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return l.lost()
	}
	return err
}

// fenceToken is l's token as the statements take it: "" for no fence.
func (l *sqlLease) fenceToken() string {
	if l == nil {
		return ""
	}
	return l.token
}

// token is l's token boxed, reusing the box of the last put.
func (d *direct) token(l *sqlLease) any {
	if l == nil {
		return ""
	}
	if d.tokenBox == nil || d.tokenOf != l.token {
		d.tokenOf, d.tokenBox = l.token, any(l.token)
	}
	return d.tokenBox
}

// checkFence is checkFenceTx inside putDirect's transaction, after its
// insert stored nothing: the lease lost, or another reason (the head).
func (d *direct) checkFence(l *sqlLease) error {
	d.setArgs([]any{l.info.Thread, l.token})
	rows, err := d.fence.QueryContext(context.Background(), d.args)
	if err != nil {
		return err
	}
	defer rows.Close()
	switch err := rows.Next([]driver.Value{nil}); {
	case errors.Is(err, io.EOF):
		return l.lost()
	case err != nil:
		return err
	}
	return nil
}
