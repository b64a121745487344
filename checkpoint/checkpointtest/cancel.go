package checkpointtest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// Cancellation

// tripCtx is cancelled by its n-th call of Done or Err: a deterministic way
// to cancel a call part-way through, without sleeps.
type tripCtx struct {
	context.Context
	mu      sync.Mutex
	left    int
	done    chan struct{}
	tripped bool
}

func newTripCtx(n int) *tripCtx {
	return &tripCtx{Context: context.Background(), left: n, done: make(chan struct{})}
}

func (c *tripCtx) tick() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tripped {
		c.left--
		if c.left <= 0 {
			c.tripped = true
			close(c.done)
		}
	}
	return c.tripped
}

func (c *tripCtx) Done() <-chan struct{} { c.tick(); return c.done }

func (c *tripCtx) Err() error {
	if c.tick() {
		return context.Canceled
	}
	return nil
}

func (c *tripCtx) wasTripped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tripped
}

// cancelMidPut cancels a Put with many blobs (more than one insert
// statement's worth) at every point it looks at its context: each attempt
// either succeeds or fails with an error wrapping context.Canceled; either
// way the checkpoint is stored whole or not at all, and the thread goes on
// from whatever the head is. (A network backend cannot always tell whether
// a commit it was cancelled during happened: such "failed" puts that did
// store their checkpoint are logged.)
//
// With strictErr, it checks only that every failure wraps context.Canceled
// (the suite's rule for calls with a cancelled context); without, only
// atomicity and settledness.
func cancelMidPut(t *testing.T, s checkpoint.Saver, strictErr bool) {
	thread := newThreadID()
	head := putChain(t, s, thread, "", 1, nil)[0]
	big := string(randomBytes(t, 256<<10))
	succeeded := false
	var absent []string // checkpoints of failed puts, not stored when Put returned
	for n := 1; n <= 400 && !succeeded; n++ {
		blobs := map[string]checkpoint.Blob{}
		for i := range 20 {
			blobs[fmt.Sprintf("ch%02d", i)] = full(fmt.Sprintf("v%d-%d", n, i), fmt.Sprintf(`"%d-%d"`, n, i))
		}
		blobs["big"] = full(fmt.Sprint("big", n), big)
		req := step{parent: head, blobs: blobs}.request(thread)
		ctx := newTripCtx(n)
		_, err := s.Put(ctx, req)
		tup, gerr := s.Get(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: req.Checkpoint.ID})
		if err == nil {
			require.NoError(t, gerr, "attempt %d: Put succeeded", n)
			require.Len(t, tup.Checkpoint.Values, len(blobs), "attempt %d", n)
			require.Equal(t, big, string(tup.Checkpoint.Values["big"].Snapshot), "attempt %d", n)
			succeeded = !ctx.wasTripped()
			head = req.Checkpoint.ID
			continue
		}
		if strictErr {
			require.ErrorIs(t, err, context.Canceled, "attempt %d: a cancelled Put", n)
		}
		if gerr == nil {
			t.Logf("attempt %d: Put failed with %v, yet stored its checkpoint", n, err)
			require.Len(t, tup.Checkpoint.Values, len(blobs), "attempt %d: stored whole", n)
			require.Equal(t, big, string(tup.Checkpoint.Values["big"].Snapshot), "attempt %d", n)
			require.Equal(t, req.Checkpoint.ID, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID, "attempt %d", n)
			head = req.Checkpoint.ID
			continue
		}
		requireNotFound(t, gerr, thread, "attempt %d", n)
		absent = append(absent, req.Checkpoint.ID)
		require.Equal(t, head, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID, "attempt %d: the head did not move", n)
	}
	require.True(t, succeeded, "a Put that is never cancelled succeeds")
	require.Len(t, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.Values, 21)
	for _, id := range absent {
		_, err := s.Get(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: id})
		requireNotFound(t, err, thread, "checkpoint %s of a failed Put appeared after Put returned", id)
	}
}

// cancelMidPutWrites: a cancelled PutWrites stores all of its writes or
// none of them, and what it stored is settled when it returns (nothing
// shows up later).
func cancelMidPutWrites(t *testing.T, s checkpoint.Saver, strictErr bool) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 1, nil)
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: ids[0]}
	succeeded := false
	seen := map[string]int{} // writes of each task when its call returned
	for n := 1; n <= 400 && !succeeded; n++ {
		task := fmt.Sprint("task-", n)
		var writes []checkpoint.PendingWrite
		for i := range 12 {
			writes = append(writes, pending(i, "x", fmt.Sprint(i)))
		}
		writes = append(writes, pending(-1, checkpoint.ErrorChannel, `"e"`))
		ctx := newTripCtx(n)
		err := s.PutWrites(ctx, cfg, task, writes)
		got := 0
		for _, w := range mustGet(t, s, cfg).PendingWrites {
			if w.TaskID == task {
				got++
			}
		}
		seen[task] = got
		if err == nil {
			require.Equal(t, len(writes), got, "attempt %d", n)
			succeeded = !ctx.wasTripped()
			continue
		}
		if strictErr {
			require.ErrorIs(t, err, context.Canceled, "attempt %d: a cancelled PutWrites", n)
		}
		if got != 0 {
			t.Logf("attempt %d: PutWrites failed with %v, yet stored its writes", n, err)
		}
		require.Contains(t, []int{0, len(writes)}, got, "attempt %d: a cancelled PutWrites stored %d of its %d writes", n, got, len(writes))
	}
	require.True(t, succeeded)
	now := map[string]int{}
	for _, w := range mustGet(t, s, cfg).PendingWrites {
		now[w.TaskID]++
	}
	for task, n := range seen {
		require.Equal(t, n, now[task], "task %s: its writes changed after PutWrites returned", task)
	}
}
