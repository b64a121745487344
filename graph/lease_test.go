package graph_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// gatedGraph is Start → a → b; a signals entered once and waits for
// release (or its context) before it writes.
func gatedGraph(entered chan<- struct{}, release <-chan struct{}) *graph.StateGraph[counter] {
	var once sync.Once
	return graph.New(schema).AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
		once.Do(func() { close(entered) })
		select {
		case <-release:
		case <-ctx.Done():
			return state.Update[counter]{}, ctx.Err()
		}
		return state.Writes(totalField.Set(1), trailField.Set([]string{"a"})), nil
	}).AddNode("b", visit("b")).AddEdge(graph.Start, "a").AddEdge("a", "b")
}

func countHistory(t *testing.T, s checkpoint.Saver, thread string) (all, inputs int) {
	t.Helper()
	for tup, err := range s.List(t.Context(), checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		all++
		if tup.Metadata.Source == checkpoint.SourceInput {
			inputs++
		}
	}
	return all, inputs
}

func TestRunOnABusyThreadGetsABusyErrorNamingTheHolder(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			entered, release := make(chan struct{}), make(chan struct{})
			g := gatedGraph(entered, release)
			first := mustCompile(t, g, graph.WithCheckpointer(saver))
			// Another compiled graph on the saver: another process, as far
			// as the in-process lock goes.
			second := mustCompile(t, g, graph.WithCheckpointer(saver))
			done := make(chan error, 1)
			go func() {
				_, err := first.Invoke(context.Background(), state.Writes(lastField.Set("first")), graph.WithThread("t"), graph.WithRunID("run-1"))
				done <- err
			}()
			<-entered
			all, inputs := countHistory(t, saver, "t")

			for _, c := range []*graph.Compiled[counter]{second, first} {
				_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("second")), graph.WithThread("t"))
				require.ErrorIs(t, err, checkpoint.ErrBusy)
				require.ErrorIs(t, err, checkpoint.ErrConflict, "a busy thread is a conflict, as it always was")
				var be *checkpoint.BusyError
				require.ErrorAs(t, err, &be)
				require.Equal(t, "t", be.Thread)
				host, _ := os.Hostname()
				require.Contains(t, be.Holder, host+":"+strconv.Itoa(os.Getpid())+":run-1", "holder is host:pid:run")
				require.ErrorContains(t, err, `graph: thread "t" is busy: held by `+be.Holder+" since ")
				require.False(t, be.Since.IsZero())
				_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("edit")), "", graph.WithThread("t"))
				require.ErrorIs(t, err, checkpoint.ErrBusy, "UpdateState takes the lease too")
			}
			a2, i2 := countHistory(t, saver, "t")
			require.Equal(t, all, a2, "the refused runs stored nothing")
			require.Equal(t, inputs, i2)
			require.Equal(t, 1, i2, "one input checkpoint: the first run's")

			close(release)
			require.NoError(t, <-done)
			_, err := second.Invoke(t.Context(), state.Writes(lastField.Set("second")), graph.WithThread("t"))
			require.NoError(t, err, "the lease is released when the run ends")
			_, err = first.UpdateState(t.Context(), state.Writes(lastField.Set("edit")), "", graph.WithThread("t"))
			require.NoError(t, err)
			if l, ok := saver.(checkpoint.Leaser); ok {
				info, err := l.LeaseOf(t.Context(), "t")
				require.NoError(t, err)
				require.Nil(t, info, "UpdateState released its lease")
			}
		})
	}
}

// busySignalSaver is a memory saver that reports each lease refused as
// busy on busy, so a test can act once a waiting run has found the thread
// taken (rather than guess how long that takes).
type busySignalSaver struct {
	*memory.Saver
	busy chan struct{}
}

func (s busySignalSaver) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	ls, err := s.Saver.Lease(ctx, thread, holder, ttl)
	if errors.Is(err, checkpoint.ErrBusy) {
		select {
		case s.busy <- struct{}{}:
		default:
		}
	}
	return ls, err
}

func TestWaitForThreadWaitsForAnotherProcessLease(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	saver := busySignalSaver{Saver: mem, busy: make(chan struct{}, 1)}
	entered, release := make(chan struct{}), make(chan struct{})
	g := gatedGraph(entered, release)
	first := mustCompile(t, g, graph.WithCheckpointer(mem))
	second := mustCompile(t, g, graph.WithCheckpointer(saver))
	done := make(chan error, 1)
	go func() {
		_, err := first.Invoke(context.Background(), state.Writes(lastField.Set("first")), graph.WithThread("t"))
		done <- err
	}()
	<-entered

	// Bounded by its context, the wait gives up naming the holder: the
	// context ends once the waiting run found the thread busy.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-saver.busy
		cancel()
	}()
	_, err := second.Invoke(ctx, state.Writes(lastField.Set("second")), graph.WithThread("t"), graph.WaitForThread())
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, `waiting for thread "t" (held by `)

	waited := make(chan counter, 1)
	go func() {
		out, err := second.Invoke(context.Background(), state.Writes(lastField.Set("second")), graph.WithThread("t"), graph.WaitForThread())
		if err != nil {
			t.Error(err)
		}
		waited <- out
	}()
	close(release)
	require.NoError(t, <-done)
	out := <-waited
	require.Equal(t, 2, out.Total, "the waiting run ran after the first, on its state")
	require.Equal(t, []string{"a", "b", "a", "b"}, out.Trail)
}

// losingSaver is a memory saver whose leases are lost, on Renew, once
// lose is closed; renewals counts the successful ones.
type losingSaver struct {
	*memory.Saver
	lose     chan struct{}
	renewals atomic.Int32
	renewed  chan struct{} // gets a value after each successful renewal, if there is room
}

func (s *losingSaver) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	ls, err := s.Saver.Lease(ctx, thread, holder, ttl)
	if err != nil {
		return nil, err
	}
	return &losingLease{Lease: ls, s: s}, nil
}

type losingLease struct {
	checkpoint.Lease
	s *losingSaver
}

func (l *losingLease) Renew(ctx context.Context) error {
	select {
	case <-l.s.lose:
		return fmt.Errorf("stolen: %w", checkpoint.ErrLeaseLost)
	default:
	}
	if err := l.Lease.Renew(ctx); err != nil {
		return err
	}
	l.s.renewals.Add(1)
	select {
	case l.s.renewed <- struct{}{}:
	default:
	}
	return nil
}

func TestRunThatLostItsLeaseStopsBeforeStoringMore(t *testing.T) {
	t.Parallel()
	saver := &losingSaver{Saver: memory.New(), lose: make(chan struct{}), renewed: make(chan struct{}, 1)}
	entered := make(chan struct{})
	g := gatedGraph(entered, make(chan struct{})) // a waits for its context
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithLease(30*time.Millisecond))
	done := make(chan error, 1)
	go func() {
		_, err := c.Invoke(context.Background(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
		done <- err
	}()
	<-entered
	before, _ := countHistory(t, saver, "t")
	close(saver.lose)
	err := <-done
	require.ErrorIs(t, err, checkpoint.ErrLeaseLost)
	require.ErrorContains(t, err, `graph: thread "t": the run lost its lease`)
	after, _ := countHistory(t, saver, "t")
	require.Equal(t, before, after, "nothing stored after the loss")
	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Empty(t, tup.PendingWrites, "not even the stopped task's error")
}

func TestHeartbeatKeepsTheLeaseBeyondItsTTL(t *testing.T) {
	t.Parallel()
	// The saver's leases read a clock the test moves: after each renewal it
	// has seen, half a ttl. Past a ttl of moves the lease would have expired
	// unless the heartbeat renewed it, however late the machine runs.
	var moved atomic.Int64
	start := time.Now()
	clock := func() time.Time { return start.Add(time.Duration(moved.Load())) }
	saver := &losingSaver{Saver: memory.New(memory.WithLeaseClock(clock)), lose: make(chan struct{}), renewed: make(chan struct{}, 1)}
	entered, release := make(chan struct{}), make(chan struct{})
	g := gatedGraph(entered, release)
	const ttl = 300 * time.Millisecond
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithLease(ttl))
	done := make(chan error, 1)
	go func() {
		_, err := c.Invoke(context.Background(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
		done <- err
	}()
	<-entered
	for time.Duration(moved.Load()) < 2*ttl {
		<-saver.renewed
		moved.Add(int64(ttl / 2))
	}
	_, err := saver.Saver.Lease(t.Context(), "t", "intruder", time.Minute)
	require.ErrorIs(t, err, checkpoint.ErrBusy, "renewed, the lease outlives its ttl")
	close(release)
	require.NoError(t, <-done)
	info, err := saver.LeaseOf(t.Context(), "t")
	require.NoError(t, err)
	require.Nil(t, info, "released at the end")
}

func TestLeaseIsReleasedHoweverTheRunEnds(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	fail := errors.New("boom")
	g := graph.New(schema).AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
		if s.Last == "fail" {
			return state.Update[counter]{}, fail
		}
		return state.Writes(totalField.Set(1)), nil
	}).AddNode("b", visit("b")).AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithInterruptBefore("b"))
	free := func(thread string) {
		t.Helper()
		info, err := saver.LeaseOf(t.Context(), thread)
		require.NoError(t, err)
		require.Nil(t, info, "thread %q", thread)
	}
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("fail")), graph.WithThread("error"))
	require.ErrorIs(t, err, fail)
	free("error")
	_, err = c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("interrupt"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	free("interrupt")
	for range c.Stream(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("stream")) {
		break
	}
	free("stream")
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("interrupt"))
	require.NoError(t, err)
	free("interrupt")
}
