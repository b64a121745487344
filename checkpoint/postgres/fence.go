package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Fencer = (*Saver)(nil)

// FencesWrites marks the saver as a checkpoint.Fencer: Put and PutWrites
// store nothing when their context is fenced (checkpoint.WithFence) by a
// lease of this saver on their thread that is no longer held. The check
// is part of the statement that stores: it holds the lease row FOR SHARE,
// so a takeover cannot commit between the check and the write.
func (s *Saver) FencesWrites() {}

// fenceOf returns the lease of s that fences ctx's writes of thread, or
// nil when there is none.
func (s *Saver) fenceOf(ctx context.Context, thread string) *pgLease {
	l, ok := checkpoint.FenceOf(ctx).(*pgLease)
	if !ok || l.s != s || l.info.Thread != thread {
		return nil
	}
	return l
}

// fenceToken is the fence's token as the statements take it: empty for
// none.
func (l *pgLease) fenceToken() string {
	if l == nil {
		return ""
	}
	return l.token
}

// fenceLost reports, after a fenced statement stored nothing, whether
// the reason was the loss of its lease: the error to return, or nil.
func (s *Saver) fenceLost(ctx context.Context, conn *pgxpool.Conn, l *pgLease) error {
	if l == nil {
		return nil
	}
	var held bool
	if err := conn.QueryRow(ctx, s.q.fenceHeld, l.info.Thread, l.token).Scan(&held); err != nil {
		return err
	}
	if held {
		return nil
	}
	return checkpoint.FenceLostError(l.info.Thread, l.Info().Holder)
}
