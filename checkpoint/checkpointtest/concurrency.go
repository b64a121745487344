package checkpointtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var concurrencyTests = []test{
	{name: "FirstPutOneWins", fn: testConcurrencyFirstPutOneWins},
	{name: "WritersBuildOneChain", fn: testConcurrencyWritersBuildOneChain},
	{name: "SeparateHeadsNeverConflict", fn: testConcurrencySeparateHeadsNeverConflict},
}

// Concurrency

// testConcurrencyFirstPutOneWins: many first puts (ExpectHead "") on an empty
// namespace: exactly one wins.
func testConcurrencyFirstPutOneWins(t *testing.T, s checkpoint.Saver) {
	const writers = 16
	thread := newThreadID()
	putChain(t, s, thread, "other", 1, nil) // the thread exists, this namespace does not
	for _, ns := range []string{"", "child:1"} {
		reqs := make([]checkpoint.PutRequest, writers)
		for i := range reqs {
			reqs[i] = step{ns: ns, blobs: map[string]checkpoint.Blob{"n": full(fmt.Sprint("w", i), fmt.Sprint(i))}}.request(thread)
		}
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range reqs {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Put(context.Background(), reqs[i])
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "ns %q: writers %d and %d both won", ns, winner, i)
				winner = i
				continue
			}
			require.ErrorIs(t, err, checkpoint.ErrConflict, "ns %q writer %d", ns, i)
		}
		require.NotEqual(t, -1, winner, "ns %q", ns)
		cfg := checkpoint.Config{ThreadID: thread, Namespace: ns}
		require.Equal(t, []string{reqs[winner].Checkpoint.ID}, listIDs(t, s, cfg, checkpoint.ListOptions{}))
		require.Equal(t, map[string]flat{"n": flatVal(fmt.Sprint("w", winner), fmt.Sprint(winner))}, flatValues(mustGet(t, s, cfg).Checkpoint.Values))
	}
}

// testConcurrencyWritersBuildOneChain: goroutines each read the head and put a
// child of it, with a pending write, until each has won a fixed number of
// times. The history is one unbroken chain of exactly the winners.
func testConcurrencyWritersBuildOneChain(t *testing.T, s checkpoint.Saver) {
	const writers, wins = 6, 8
	ctx := context.Background()
	thread := newThreadID()
	var mu sync.Mutex
	won := map[string]string{} // id → value
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < wins; {
				head := ""
				tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread})
				switch {
				case err == nil:
					head = tup.Checkpoint.ID
				case !errors.Is(err, checkpoint.ErrNotFound):
					t.Error(err)
					return
				}
				v := fmt.Sprintf("w%d-%d", w, i)
				req := step{parent: head, blobs: map[string]checkpoint.Blob{"n": full(v, `"`+v+`"`)}}.request(thread)
				_, err = s.Put(ctx, req)
				if errors.Is(err, checkpoint.ErrConflict) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: req.Checkpoint.ID}, v, []checkpoint.PendingWrite{pending(0, "n", v)}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				won[req.Checkpoint.ID] = v
				mu.Unlock()
				i++
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	hist := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, hist, writers*wins)
	for i, tup := range hist {
		v, ok := won[tup.Checkpoint.ID]
		require.True(t, ok, "checkpoint %s was stored but its put failed", tup.Checkpoint.ID)
		require.Equal(t, map[string]flat{"n": flatVal(v, `"`+v+`"`)}, flatValues(tup.Checkpoint.Values))
		require.Equal(t, []flatWrite{{v, 0, "n", v}}, flatWrites(tup.PendingWrites))
		if i == len(hist)-1 {
			require.Nil(t, tup.Parent)
		} else {
			require.NotNil(t, tup.Parent)
			require.Equal(t, hist[i+1].Checkpoint.ID, tup.Parent.CheckpointID, "one chain")
		}
	}
}

// testConcurrencySeparateHeadsNeverConflict: puts on different threads and namespaces
// never conflict with each other.
func testConcurrencySeparateHeadsNeverConflict(t *testing.T, s checkpoint.Saver) {
	const writers, steps = 12, 6
	thread := newThreadID()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			th, ns := thread, fmt.Sprintf("child:%d", w)
			if w%2 == 1 {
				th, ns = fmt.Sprintf("%s-%d", thread, w), ""
			}
			parent := ""
			for i := range steps {
				req := step{ns: ns, parent: parent, blobs: map[string]checkpoint.Blob{"n": full(fmt.Sprint(i), fmt.Sprint(i))}}.request(th)
				if _, err := s.Put(context.Background(), req); err != nil {
					t.Errorf("thread %q ns %q step %d: %v", th, ns, i, err)
					return
				}
				parent = req.Checkpoint.ID
			}
		})
	}
	wg.Wait()
	for w := range writers {
		th, ns := thread, fmt.Sprintf("child:%d", w)
		if w%2 == 1 {
			th, ns = fmt.Sprintf("%s-%d", thread, w), ""
		}
		require.Len(t, listIDs(t, s, checkpoint.Config{ThreadID: th, Namespace: ns}, checkpoint.ListOptions{}), steps)
	}
}
