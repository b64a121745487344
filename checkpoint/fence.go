package checkpoint

import (
	"context"
	"fmt"
)

// A lease keeps other runs out of a thread, but a run only learns that it
// lost its lease (it expired while the process was stalled, or a worker
// that took its job over broke it) at its next renewal. A fence closes
// that window: the run's writes carry its lease, and a Fencer stores them
// only while the lease is still held, checked in the commit that stores
// them. A run that lost its thread to another leaves nothing in it.

type fenceKey struct{}

// WithFence returns a copy of ctx whose Puts and PutWrites are fenced by
// lease: a Fencer that made lease stores them only while lease is held
// (not released, not taken over by another holder), checked in the commit
// that stores them, and otherwise fails with an error wrapping
// ErrLeaseLost, storing nothing. The fence applies to writes of lease's
// thread only; writes of other threads, and savers that did not make
// lease, ignore it.
func WithFence(ctx context.Context, lease Lease) context.Context {
	return context.WithValue(ctx, fenceKey{}, lease)
}

// FenceOf returns the lease that fences ctx's writes (WithFence), or nil.
func FenceOf(ctx context.Context) Lease {
	l, _ := ctx.Value(fenceKey{}).(Lease)
	return l
}

// Fencer is implemented by Leasers that honour WithFence for the leases
// they make.
type Fencer interface {
	Leaser
	// FencesWrites marks the saver as one whose Put and PutWrites check
	// the fence of their context.
	FencesWrites()
}

// FenceLostError is the error of a fenced write whose lease is no longer
// held.
func FenceLostError(thread, holder string) error {
	return fmt.Errorf("%w: thread %q, holder %s: the write was fenced by a lease another holder took, or that was released; nothing stored", ErrLeaseLost, thread, holder)
}
