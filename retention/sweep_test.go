package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention"
)

var (
	t0  = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day = 24 * time.Hour
	ttl = 30 * day
)

func TestSweepDeletesExactlyTheExpiredThreads(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("a-old", "", t0.Add(-40*day), 3)
		f.mustPut("b-old-sub", "", t0.Add(-35*day), 1)
		f.mustPut("b-old-sub", "sub:1", t0.Add(-31*day), 2)
		f.mustPut("c-young", "", t0.Add(-29*day), 2)
		f.mustPut("d-old-root-young-sub", "", t0.Add(-60*day), 1)
		f.mustPut("d-old-root-young-sub", "sub:1", t0.Add(-1*day), 1)
		f.mustPut("e-old", "", t0.Add(-ttl-time.Second), 1)
		f.mustPut("f-at-the-cutoff", "", t0.Add(-ttl), 1)
		clock := newFakeClock(t0)
		sw, err := retention.New(s, retention.Policy{TTL: ttl}, retention.WithClock(clock), retention.WithBatchSize(2))
		require.NoError(t, err)

		r, err := sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"a-old", "b-old-sub", "e-old"}, r.Deleted)
		require.Equal(t, 3, r.Expired)
		require.Equal(t, 2, r.Batches, "3 expired threads in batches of 2")
		require.True(t, r.Cutoff.Equal(t0.Add(-ttl)))
		for thread, want := range map[string]int{"a-old": 0, "b-old-sub": 0, "c-young": 2, "d-old-root-young-sub": 1, "e-old": 0, "f-at-the-cutoff": 1} {
			require.Equal(t, want, count(t, s, thread, ""), thread)
		}
		require.Zero(t, count(t, s, "b-old-sub", "sub:1"), "every namespace goes")
		require.Equal(t, 1, count(t, s, "d-old-root-young-sub", "sub:1"))

		clock.Advance(2 * day)
		r, err = sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"c-young", "f-at-the-cutoff"}, r.Deleted, "two days later")

		r, err = sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Empty(t, r.Deleted)
		require.Zero(t, r.Batches)

		_, err = s.Put(context.Background(), checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: "a-old"},
			Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: t0, Versions: map[string]string{}},
		})
		require.NoError(t, err, "a deleted thread's id starts afresh")
	})
}

func TestSweepWithKeepPrunesTheExpiredThreads(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("old", "", t0.Add(-40*day), 4)
		f.mustPut("old", "sub:1", t0.Add(-40*day), 3)
		f.mustPut("young", "", t0.Add(-day), 4)
		sw, err := retention.New(s, retention.Policy{TTL: ttl, Keep: 2}, retention.WithClock(newFakeClock(t0)))
		require.NoError(t, err)
		r, err := sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"old"}, r.Pruned)
		require.Empty(t, r.Deleted)
		require.Equal(t, 2, count(t, s, "old", ""))
		require.Equal(t, 2, count(t, s, "old", "sub:1"), "keep counts per namespace")
		require.Equal(t, 4, count(t, s, "young", ""))
	})
}

func TestSweepLeavesAThreadARunHolds(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("held", "", t0.Add(-40*day), 1)
		f.mustPut("free", "", t0.Add(-40*day), 1)
		l, err := s.(checkpoint.Leaser).Lease(context.Background(), "held", "a run", time.Hour)
		require.NoError(t, err)
		sw, err := retention.New(s, retention.Policy{TTL: ttl}, retention.WithClock(newFakeClock(t0)))
		require.NoError(t, err)
		r, err := sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"free"}, r.Deleted)
		require.Equal(t, 1, r.Kept)
		require.Equal(t, 1, count(t, s, "held", ""))
		require.NoError(t, l.Release(context.Background()))
		r, err = sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"held"}, r.Deleted, "once released, it expires like any")
	})
}

// TestAWriterProgressesBetweenBatches shows by ordering that a sweep holds
// no lock across batches: after the first batch, and before the second,
// a writer stores checkpoints — on a fresh thread and on an expired
// thread the second batch was about to delete — and both succeed; the
// refreshed thread is kept.
func TestAWriterProgressesBetweenBatches(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		for _, th := range []string{"t1", "t2", "t3"} {
			f.mustPut(th, "", t0.Add(-40*day), 2)
		}
		var writes []error
		batches := 0
		sw, err := retention.New(s, retention.Policy{TTL: ttl},
			retention.WithClock(newFakeClock(t0)), retention.WithBatchSize(1),
			retention.OnBatch(func(b retention.Report) {
				batches++
				if batches != 1 {
					return
				}
				// A bound, not a synchronisation: a sweep that held the
				// write lock would make these fail instead of hang.
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				writes = append(writes, f.put(ctx, "fresh", "", t0), f.put(ctx, "t2", "", t0))
			}))
		require.NoError(t, err)
		r, err := sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []error{nil, nil}, writes, "the writer stored both checkpoints mid-sweep")
		require.Equal(t, []string{"t1", "t3"}, r.Deleted)
		require.Equal(t, 3, count(t, s, "t2", ""), "t2 got a checkpoint after it was listed: kept")
		require.Equal(t, 1, count(t, s, "fresh", ""))
		require.Equal(t, 2, r.Batches)
	})
}

// TestAWriteToAListedThreadKeepsIt is the race DeleteStaleThreads closes:
// a thread listed as expired gets a checkpoint before the delete runs.
func TestAWriteToAListedThreadKeepsIt(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("t", "", t0.Add(-40*day), 1)
		exp := s.(retention.Expirer)
		cutoff := t0.Add(-ttl)
		listed, err := exp.StaleThreads(context.Background(), cutoff, "", 10)
		require.NoError(t, err)
		require.Len(t, listed, 1)
		require.True(t, listed[0].Updated.Equal(t0.Add(-40*day)), "updated %v", listed[0].Updated)
		f.mustPut("t", "", t0, 1)
		deleted, err := exp.DeleteStaleThreads(context.Background(), cutoff, []string{"t"})
		require.NoError(t, err)
		require.Empty(t, deleted)
		require.Equal(t, 2, count(t, s, "t", ""))
	})
}

func TestStaleThreadsPagesInIDOrder(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		for _, th := range []string{"c", "a", "e", "b", "d"} {
			f.mustPut(th, "", t0.Add(-40*day), 1)
		}
		exp := s.(retention.Expirer)
		var got []string
		after := ""
		for {
			page, err := exp.StaleThreads(context.Background(), t0, after, 2)
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			require.LessOrEqual(t, len(page), 2)
			for _, th := range page {
				got = append(got, th.ID)
			}
			after = page[len(page)-1].ID
		}
		require.Equal(t, []string{"a", "b", "c", "d", "e"}, got)
	})
}

// saverOnly hides every optional interface of a saver.
type saverOnly struct{ checkpoint.Saver }

// expirerOnly is an Expirer that cannot prune.
type expirerOnly struct {
	checkpoint.Saver
	retention.Expirer
}

func TestNewRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	m := memory.New()
	for _, c := range []struct {
		name  string
		saver checkpoint.Saver
		p     retention.Policy
		opts  []retention.Option
		want  string
	}{
		{"not an Expirer", saverOnly{m}, retention.Policy{TTL: time.Hour}, nil, "does not implement retention.Expirer"},
		{"no TTL", m, retention.Policy{}, nil, "TTL must be positive"},
		{"negative keep", m, retention.Policy{TTL: time.Hour, Keep: -1}, nil, "negative keep"},
		{"keep without Pruner", expirerOnly{m, m}, retention.Policy{TTL: time.Hour, Keep: 1}, nil, "checkpoint.Pruner"},
		{"batch 0", m, retention.Policy{TTL: time.Hour}, []retention.Option{retention.WithBatchSize(0)}, "batch size 0"},
		{"interval 0", m, retention.Policy{TTL: time.Hour}, []retention.Option{retention.WithInterval(0)}, "interval 0s"},
	} {
		_, err := retention.New(c.saver, c.p, c.opts...)
		require.ErrorContains(t, err, c.want, c.name)
	}
}
