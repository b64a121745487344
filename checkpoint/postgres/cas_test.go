package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestCASHoldsAcrossPools runs writers through three pools, as three
// processes would, all advancing one thread from the head they last read.
// Every put either extends the head it read or fails with ErrConflict, so
// the history stays one linear chain with no lost or forked checkpoint.
func TestCASHoldsAcrossPools(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	savers := make([]*postgres.Saver, 3)
	for i := range savers {
		savers[i] = postgres.New(newPool(t, nil), postgres.WithSchema(schema))
		require.NoError(t, savers[i].Migrate(ctx))
	}
	thread := newThread()

	const writersPerPool, attempts = 3, 15
	var stored, conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(savers)*writersPerPool)
	for _, s := range savers {
		for range writersPerPool {
			wg.Go(func() {
				for range attempts {
					head := ""
					var versions map[string]string
					tup, err := s.Get(ctx, configOf(thread))
					switch {
					case errors.Is(err, checkpoint.ErrNotFound):
					case err != nil:
						errs <- err
						return
					default:
						head, versions = tup.Checkpoint.ID, tup.Checkpoint.Versions
					}
					req := putReq(thread, head, versions, map[string]checkpoint.Blob{"n": fullBlob(checkpoint.NewID(), "1")})
					_, err = s.Put(ctx, req)
					switch {
					case errors.Is(err, checkpoint.ErrConflict):
						conflicts.Add(1)
						if !assertConflictNames(err, thread, head) {
							errs <- err
							return
						}
					case err != nil:
						errs <- err
						return
					default:
						stored.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Positive(t, stored.Load())
	require.Equal(t, int64(len(savers)*writersPerPool*attempts), stored.Load()+conflicts.Load())

	var chain []*checkpoint.Tuple
	for tup, err := range savers[0].List(ctx, configOf(thread), checkpoint.ListOptions{}) {
		require.NoError(t, err)
		chain = append(chain, tup)
	}
	require.Len(t, chain, int(stored.Load()), "every successful put is stored, no other")
	for i, tup := range chain[:len(chain)-1] {
		require.NotNil(t, tup.Parent)
		require.Equal(t, chain[i+1].Checkpoint.ID, tup.Parent.CheckpointID, "each checkpoint extends the one before it: no fork")
	}
	require.Nil(t, chain[len(chain)-1].Parent)
}

// assertConflictNames reports whether a conflict error names the thread
// and the head the writer expected.
func assertConflictNames(err error, thread, expected string) bool {
	msg := err.Error()
	return strings.Contains(msg, thread) && strings.Contains(msg, `expected head "`+expected+`"`) && strings.Contains(msg, "actual head")
}

func TestConflictErrorNamesBothHeads(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	first := mustPut(t, s, putReq(thread, "", nil, nil))
	second := mustPut(t, s, putReq(thread, first, nil, nil))

	_, err := s.Put(ctx, putReq(thread, first, nil, nil))
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorContains(t, err, thread)
	require.ErrorContains(t, err, `expected head "`+first+`", actual head "`+second+`"`)

	_, err = s.Put(ctx, putReq(thread, "", nil, nil))
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorContains(t, err, `expected head "", actual head "`+second+`"`)

	// Storing an id twice is a conflict too, and changes nothing.
	again := putReq(thread, second, nil, nil)
	again.Checkpoint.ID = second
	_, err = s.Put(ctx, again)
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorContains(t, err, thread)

	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, second, tup.Checkpoint.ID)
}

// TestFirstPutRaceAcrossSaversOneWins: first puts (ExpectHead "") of one
// empty namespace from savers on separate pools: exactly one wins.
func TestFirstPutRaceAcrossSaversOneWins(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	const n = 6
	savers := make([]*postgres.Saver, n)
	for i := range savers {
		savers[i] = postgres.New(newPool(t, nil), postgres.WithSchema(schema))
		require.NoError(t, savers[i].Migrate(ctx))
	}
	for round := range 5 {
		thread := newThread()
		errs := make(chan error, n)
		start := make(chan struct{})
		for _, s := range savers {
			go func() {
				<-start
				_, err := s.Put(ctx, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob(uuid.NewString(), `"x"`)}))
				errs <- err
			}()
		}
		close(start)
		wins := 0
		for range savers {
			if err := <-errs; err == nil {
				wins++
			} else {
				require.ErrorIs(t, err, checkpoint.ErrConflict, "round %d", round)
			}
		}
		require.Equal(t, 1, wins, "round %d", round)
		n := 0
		for _, err := range savers[0].List(ctx, configOf(thread), checkpoint.ListOptions{}) {
			require.NoError(t, err)
			n++
		}
		require.Equal(t, 1, n, "round %d", round)
	}
}
