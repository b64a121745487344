// Package faultsaver holds a checkpoint saver for crash tests: it stands
// in for a process that dies between an effect and the write recording
// it.
package faultsaver

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/stategraph/stategraph/checkpoint"
)

// ErrDied is the error of the write a Saver fails.
var ErrDied = errors.New("faultsaver: the process died")

// Saver passes every call to the saver it embeds, except that once armed
// the next PutWrites stores nothing and fails with ErrDied: a ledger's end
// record lost after the tool's effect took place.
type Saver struct {
	checkpoint.Saver
	armed atomic.Bool
}

// Arm makes the next PutWrites fail, once.
func (s *Saver) Arm() { s.armed.Store(true) }

// PutWrites fails with ErrDied when armed, and disarms; else it stores ws.
func (s *Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	if s.armed.CompareAndSwap(true, false) {
		return ErrDied
	}
	return s.Saver.PutWrites(ctx, cfg, taskID, ws)
}
