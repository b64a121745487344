package retentiontest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/retention"
)

var (
	t0  = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day = 24 * time.Hour
	ttl = 30 * day
)

// Run runs the suite on the savers newSaver returns: each must be empty
// (fresh storage), implement retention.Expirer, checkpoint.Pruner and
// checkpoint.Leaser. Cases run in parallel.
func Run(t *testing.T, newSaver func(tb testing.TB) checkpoint.Saver) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, newSaver(t))
		})
	}
}

type testCase struct {
	name string
	fn   func(t *testing.T, s checkpoint.Saver)
}

var cases = []testCase{
	{"SweepDeletesExactlyTheExpiredThreads", func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("a-old", "", t0.Add(-40*day), 3)
		f.mustPut("b-old-sub", "", t0.Add(-35*day), 1)
		f.mustPut("b-old-sub", "sub:1", t0.Add(-31*day), 2)
		f.mustPut("c-young", "", t0.Add(-29*day), 2)
		f.mustPut("d-old-root-young-sub", "", t0.Add(-60*day), 1)
		f.mustPut("d-old-root-young-sub", "sub:1", t0.Add(-1*day), 1)
		f.mustPut("e-old", "", t0.Add(-ttl-time.Second), 1)
		f.mustPut("f-at-the-cutoff", "", t0.Add(-ttl), 1)
		clock := NewClock(t0)
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
	}},
	{"SweepWithKeepPrunesTheExpiredThreads", func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("old", "", t0.Add(-40*day), 4)
		f.mustPut("old", "sub:1", t0.Add(-40*day), 3)
		f.mustPut("young", "", t0.Add(-day), 4)
		sw, err := retention.New(s, retention.Policy{TTL: ttl, Keep: 2}, retention.WithClock(NewClock(t0)))
		require.NoError(t, err)
		r, err := sw.Sweep(context.Background())
		require.NoError(t, err)
		require.Equal(t, []string{"old"}, r.Pruned)
		require.Empty(t, r.Deleted)
		require.Equal(t, 2, count(t, s, "old", ""))
		require.Equal(t, 2, count(t, s, "old", "sub:1"), "keep counts per namespace")
		require.Equal(t, 4, count(t, s, "young", ""))
	}},
	{"SweepLeavesAThreadARunHolds", func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		f.mustPut("held", "", t0.Add(-40*day), 1)
		f.mustPut("free", "", t0.Add(-40*day), 1)
		l, err := s.(checkpoint.Leaser).Lease(context.Background(), "held", "a run", time.Hour)
		require.NoError(t, err)
		sw, err := retention.New(s, retention.Policy{TTL: ttl}, retention.WithClock(NewClock(t0)))
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
	}},
	// AWriterProgressesBetweenBatches shows by ordering that a sweep holds
	// no lock across batches: after the first batch, and before the second,
	// a writer stores checkpoints — on a fresh thread and on an expired
	// thread the second batch was about to delete — and both succeed; the
	// refreshed thread is kept.
	{"AWriterProgressesBetweenBatches", func(t *testing.T, s checkpoint.Saver) {
		f := newFixture(t, s)
		for _, th := range []string{"t1", "t2", "t3"} {
			f.mustPut(th, "", t0.Add(-40*day), 2)
		}
		var writes []error
		batches := 0
		sw, err := retention.New(s, retention.Policy{TTL: ttl},
			retention.WithClock(NewClock(t0)), retention.WithBatchSize(1),
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
	}},
	// AWriteToAListedThreadKeepsIt is the race DeleteStaleThreads closes:
	// a thread listed as expired gets a checkpoint before the delete runs.
	{"AWriteToAListedThreadKeepsIt", func(t *testing.T, s checkpoint.Saver) {
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
	}},
	{"StaleThreadsPagesInIDOrder", func(t *testing.T, s checkpoint.Saver) {
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
	}},
}
