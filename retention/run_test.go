package retention_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention"
	"github.com/stategraph/stategraph/retention/retentiontest"
)

func TestRunSweepsAtEachTickUntilCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	s := memory.New()
	for thread, age := range map[string]time.Duration{"old": 40 * day, "young": 29 * day} {
		_, err := s.Put(context.Background(), checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: thread},
			Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: t0.Add(-age), Versions: map[string]string{}},
		})
		require.NoError(t, err)
	}
	clock := retentiontest.NewClock(t0)
	type sweep struct {
		r   retention.Report
		err error
	}
	sweeps := make(chan sweep)
	sw, err := retention.New(s, retention.Policy{TTL: 30 * day}, retention.WithClock(clock), retention.WithInterval(time.Hour),
		retention.OnSweep(func(r retention.Report, err error) { sweeps <- sweep{r, err} }))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sw.Run(ctx) }()

	require.Equal(t, time.Hour, <-clock.Tickers(), "Run ticks at the interval")
	for _, step := range []struct {
		advance time.Duration
		deleted []string
	}{
		{0, []string{"old"}},
		{2 * day, []string{"young"}},
		{day, nil},
	} {
		clock.Advance(step.advance)
		clock.Tick()
		got := <-sweeps
		require.NoError(t, got.err)
		require.Equal(t, step.deleted, got.r.Deleted, "after %v more", step.advance)
	}
	cancel()
	require.True(t, errors.Is(<-done, context.Canceled))
}
