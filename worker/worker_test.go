package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

func TestRunCompletesAndCanBeFollowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "t1", Input: DocInput{Topic: "t1", Add: 10}})
	require.NoError(t, err)

	var (
		statuses []worker.Status
		steps    []int
		nodes    [][]string
		final    *worker.Run
	)
	for ev, err := range c.Follow(ctx, id) {
		require.NoError(t, err)
		switch ev.Kind {
		case worker.EventStatus:
			statuses = append(statuses, ev.Status)
			final = ev.Run
		case worker.EventCheckpoint:
			steps = append(steps, ev.Step)
			nodes = append(nodes, ev.Nodes)
			require.Equal(t, "t1", ev.Checkpoint.ThreadID)
		}
	}
	require.Equal(t, worker.StatusSuccess, statuses[len(statuses)-1], "Follow ends with the final status")
	require.Equal(t, []int{-1, 0, 1, 2, 3}, steps, "every checkpoint once, in order")
	require.Equal(t, [][]string{nil, nil, {"a", "b"}, {"c"}, {"d"}}, nodes)
	require.NoError(t, final.Err())
	require.Equal(t, reference(t, DocInput{Topic: "t1", Add: 10}, 1), result(t, final))
	require.Equal(t, Doc{Topic: "t1", Trail: []string{"a", "b", "c", "d"}, Total: 14}, result(t, final))
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog("t1"))
	require.Equal(t, 1, final.Attempts)

	// A late follower sees the whole run, then its final status.
	var kinds []worker.EventKind
	for ev, err := range c.Follow(ctx, id) {
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind)
	}
	require.Equal(t, []worker.EventKind{"checkpoint", "checkpoint", "checkpoint", "checkpoint", "checkpoint", "status"}, kinds)

	// The checkpoints carry the run id.
	g := e.pipeline(nil)
	n := 0
	for snap, err := range g.History(ctx, graph.WithThread("t1"), graph.WithFilter(map[string]any{"run_id": id})) {
		require.NoError(t, err)
		require.Equal(t, id, snap.Metadata.RunID)
		n++
	}
	require.Equal(t, 5, n)

	_, err = c.Run(ctx, "nope")
	require.ErrorIs(t, err, worker.ErrNotFound)
}

func TestInterruptThenAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.review(), "review"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "r1", Input: DocInput{Topic: "Go"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusInterrupted, r.Status)
	require.NoError(t, r.Err())
	require.Len(t, r.Interrupts, 1)
	require.Equal(t, "publish Go?", r.Interrupts[0].Value)
	require.Equal(t, []string{"draft"}, result(t, r).Trail)

	// Answer it by value, then check the answer reached the node.
	id2, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "r1", Resume: "yes"})
	require.NoError(t, err)
	r2 := wait(t, c, id2)
	require.Equal(t, worker.StatusSuccess, r2.Status, r2.Error)
	require.Equal(t, Doc{Topic: "Go", Trail: []string{"draft", "ask"}, Answer: "yes"}, result(t, r2))

	// And by id, on another thread.
	id3, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "r2", Input: DocInput{Topic: "Rust"}})
	require.NoError(t, err)
	r3 := wait(t, c, id3)
	require.Equal(t, worker.StatusInterrupted, r3.Status)
	id4, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "r2", ResumeByID: map[string]any{r3.Interrupts[0].ID: "no"}})
	require.NoError(t, err)
	require.Equal(t, "no", result(t, wait(t, c, id4)).Answer)
}

func TestRejectRefusesARunForABusyThread(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("busy", "c")
	// The run accepted on "idle" parks in c too, so that the thread stays
	// busy until every concurrent enqueue has been decided: a run that
	// finished before a late goroutine enqueued would let it in.
	gi := newGate("idle", "c")
	c := e.client(registry(e.pipeline(func(ctx context.Context, topic, node string) error {
		if err := g.hook(ctx, topic, node); err != nil {
			return err
		}
		return gi.hook(ctx, topic, node)
	}), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "busy", Input: DocInput{Topic: "busy"}})
	require.NoError(t, err)
	g.await(t)

	_, err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "busy", Input: DocInput{Topic: "busy"}, Strategy: worker.Reject})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorContains(t, err, `"busy"`)
	require.ErrorContains(t, err, id)

	// Concurrent enqueues on an idle thread: exactly one is accepted.
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted []string
		refused  int
	)
	for range 6 {
		wg.Go(func() {
			id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "idle", Input: DocInput{Topic: "idle"}})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				accepted = append(accepted, id)
				return
			}
			if errors.Is(err, checkpoint.ErrConflict) {
				refused++
			}
		})
	}
	wg.Wait()
	require.Len(t, accepted, 1)
	require.Equal(t, 5, refused)
	close(gi.release)
	require.Equal(t, worker.StatusSuccess, wait(t, c, accepted[0]).Status)

	close(g.release)
	require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog("busy"))
}

func TestEnqueueRunsOneAfterAnother(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("q", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithWorkers(4))
	ctx := t.Context()

	first, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "q", Input: DocInput{Topic: "q", Add: 1}})
	require.NoError(t, err)
	g.await(t)
	var later []string
	for i := range 3 {
		id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "q", Input: DocInput{Topic: "q", Add: 10 * (i + 2)}, Strategy: worker.Enqueue})
		require.NoError(t, err)
		later = append(later, id)
	}
	// They wait while the first one holds the thread.
	for _, id := range later {
		r, err := c.Run(ctx, id)
		require.NoError(t, err)
		require.Equal(t, worker.StatusPending, r.Status)
	}
	close(g.release)
	wait(t, c, first)
	total := 1 + 4
	for i, id := range later {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
		total += 10*(i+2) + 4
		d := result(t, r)
		require.Len(t, d.Trail, 4*(i+2), "run %d saw the runs enqueued before it, and no later one", i)
		require.Equal(t, total, d.Total)
	}
	require.Equal(t, map[string]int{"a": 4, "b": 4, "c": 4, "d": 4}, e.nodeLog("q"))
}

func TestInterruptCancelsTheRunningRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("x", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"))
	ctx := t.Context()

	first, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "x", Input: DocInput{Topic: "x", Add: 1}})
	require.NoError(t, err)
	g.await(t) // a and b are done and saved; c is running
	second, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "x", Input: DocInput{Topic: "x", Add: 100}, Strategy: worker.Interrupt})
	require.NoError(t, err)

	r1 := wait(t, c, first)
	require.Equal(t, worker.StatusCancelled, r1.Status)
	require.ErrorIs(t, r1.Err(), worker.ErrCancelled)
	require.Contains(t, r1.Error, second)
	close(g.release) // the second run passes c
	r2 := wait(t, c, second)
	require.Equal(t, worker.StatusSuccess, r2.Status, r2.Error)
	// The cancelled run's progress is kept; the new input starts over
	// from Start on top of it.
	require.Equal(t, Doc{Topic: "x", Trail: []string{"a", "b", "a", "b", "c", "d"}, Total: 1 + 2 + 100 + 4}, result(t, r2))
}

func TestCancelStopsARun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("cx", "d")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cx", Input: DocInput{Topic: "cx"}})
	require.NoError(t, err)
	g.await(t)
	require.NoError(t, c.Cancel(ctx, id))
	r := wait(t, c, id)
	require.Equal(t, worker.StatusCancelled, r.Status)
	require.ErrorIs(t, r.Err(), worker.ErrCancelled)
	require.NoError(t, c.Cancel(ctx, id), "cancelling a finished run does nothing")
	require.ErrorIs(t, c.Cancel(ctx, "nope"), worker.ErrNotFound)

	// The thread resumes where the cancelled run stopped: only d runs.
	close(g.release)
	id2, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cx"})
	require.NoError(t, err)
	r2 := wait(t, c, id2)
	require.Equal(t, worker.StatusSuccess, r2.Status, r2.Error)
	require.Equal(t, []string{"a", "b", "c", "d"}, result(t, r2).Trail)
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog("cx"))
}

// TestRunLosingTheThreadHeadFails: while a run is inside a node, another
// writer (here a direct Invoke from a separately compiled graph, as
// another process would be) advances the thread. The run's next
// checkpoint fails the compare-and-set: with Reject it ends with an error
// wrapping checkpoint.ErrConflict, and the other writer's checkpoints
// stand.
func TestRunLosingTheThreadHeadFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("h", "a")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "h", Input: DocInput{Topic: "h"}})
	require.NoError(t, err)
	g.await(t)
	// A second writer is refused by the thread's lease before it stores
	// anything.
	head, err := e.saver.Get(ctx, checkpoint.Config{ThreadID: "h"})
	require.NoError(t, err)
	other := e.pipeline(nil)
	_, err = other.Invoke(ctx, state.Writes(topicF.Set("h2")), graph.WithThread("h"))
	require.ErrorIs(t, err, checkpoint.ErrBusy)
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	var be *checkpoint.BusyError
	require.ErrorAs(t, err, &be)
	require.True(t, graph.IsRunLeaseHolder(be.Holder, id), "the worker's run holds the thread: %s", be.Holder)
	after, err := e.saver.Get(ctx, checkpoint.Config{ThreadID: "h"})
	require.NoError(t, err)
	require.Equal(t, head.Checkpoint.ID, after.Checkpoint.ID, "the refused writer stored nothing")

	// A writer that ignores the lease and moves the head makes the run's
	// next checkpoint lose the compare-and-set.
	moved, err := e.saver.Put(ctx, checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: "h", CheckpointID: head.Checkpoint.ID},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), Versions: head.Checkpoint.Versions},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceUpdate, Step: head.Metadata.Step + 1},
		ExpectHead: head.Checkpoint.ID,
	})
	require.NoError(t, err)
	close(g.release)

	r := wait(t, c, id)
	require.Equal(t, worker.StatusError, r.Status)
	require.ErrorIs(t, r.Err(), checkpoint.ErrConflict)
	require.ErrorContains(t, r.Err(), `"h"`)
	last, err := e.saver.Get(ctx, checkpoint.Config{ThreadID: "h"})
	require.NoError(t, err)
	require.Equal(t, moved.CheckpointID, last.Checkpoint.ID, "the run stored nothing over the moved head")
}

func TestPermanentFailuresAreNotRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boom := errors.New("boom")
	reg := registry(e.pipeline(func(ctx context.Context, topic, node string) error {
		if topic == "fail" && node == "c" {
			return boom
		}
		return nil
	}), "pipeline")
	c := e.client(reg)
	ctx := t.Context()

	tests := []struct {
		name string
		req  worker.Request
		want string
	}{
		{"node error", worker.Request{Graph: "pipeline", Thread: "fail", Input: DocInput{Topic: "fail"}}, `node "c" failed`},
		{"bad input", worker.Request{Graph: "pipeline", Thread: "bad", Input: []int{1}}, "decode input"},
		{"unknown graph", worker.Request{Graph: "nope", Thread: "u", Input: DocInput{}}, "graph not registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := c.Enqueue(ctx, tt.req)
			require.NoError(t, err)
			r := wait(t, c, id)
			require.Equal(t, worker.StatusError, r.Status)
			require.ErrorContains(t, r.Err(), tt.want)
			require.ErrorContains(t, r.Err(), tt.req.Thread)
			require.NotErrorIs(t, r.Err(), checkpoint.ErrConflict)
			require.Eventually(t, func() bool {
				var state string
				require.NoError(t, e.pool.QueryRow(ctx, `SELECT state FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()+` WHERE id = $1`, r.JobID).Scan(&state))
				return state == "cancelled"
			}, 10*time.Second, 10*time.Millisecond, "River does not retry a permanent failure")
		})
	}
	require.Equal(t, map[string]int{"a": 1, "b": 1}, e.nodeLog("fail"))
}

func TestEnqueueInsideTheCallersTransaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	tx, err := e.pool.Begin(ctx)
	require.NoError(t, err)
	rolled, err := c.EnqueueTx(ctx, tx, worker.Request{Graph: "pipeline", Thread: "tx", Input: DocInput{Topic: "tx"}})
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(ctx))
	_, err = c.Run(ctx, rolled)
	require.ErrorIs(t, err, worker.ErrNotFound, "a rolled back enqueue leaves nothing")

	var id string
	require.NoError(t, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		id, err = c.EnqueueTx(ctx, tx, worker.Request{Graph: "pipeline", Thread: "tx", Input: DocInput{Topic: "tx"}, RunID: "my-run"})
		return err
	}))
	require.Equal(t, "my-run", id)
	require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
}

func TestRequestValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(nil)
	for _, req := range []worker.Request{
		{Thread: "t"},
		{Graph: "g"},
		{Graph: "g", Thread: "t", Strategy: "sideways"},
		{Graph: "g", Thread: "t", Input: func() {}},
		{Graph: "g", Thread: "t", Input: DocInput{}, Resume: "yes"},
		{Graph: "g", Thread: "t", Input: DocInput{}, ResumeByID: map[string]any{"i": "yes"}},
		{Graph: "g", Thread: "t", Resume: "yes", ResumeByID: map[string]any{"i": "yes"}},
	} {
		_, err := c.Enqueue(t.Context(), req)
		require.Error(t, err, "%+v", req)
	}
	require.Error(t, c.Start(t.Context()), "an insert-only client cannot work runs")
}

func TestRegisterPanicsOnMisuse(t *testing.T) {
	t.Parallel()
	g := compilePipeline(t, nil, nil, "", nil)
	reg := worker.NewRegistry()
	worker.Register(reg, "p", g, worker.JSONInput(docInput), worker.WithOutput(func(d Doc) (any, error) { return d.Trail, nil }))
	require.Panics(t, func() { worker.Register(reg, "p", g, worker.JSONInput(docInput)) })
	require.Panics(t, func() { worker.Register(reg, "", g, worker.JSONInput(docInput)) })
	require.Panics(t, func() { worker.Register[Doc](reg, "q", g, nil) })
	require.Equal(t, []string{"p"}, reg.Names())
}

func TestOutputShapesTheResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := worker.NewRegistry()
	worker.Register(reg, "trail", e.pipeline(nil), worker.JSONInput(docInput), worker.WithOutput(func(d Doc) (any, error) { return d.Trail, nil }))
	c := e.client(reg)
	id, err := c.Enqueue(t.Context(), worker.Request{Graph: "trail", Thread: "o", Input: DocInput{Topic: "o"}})
	require.NoError(t, err)
	var trail []string
	require.NoError(t, json.Unmarshal(wait(t, c, id).Result, &trail))
	require.Equal(t, []string{"a", "b", "c", "d"}, trail)
}

func TestMigrateIsIdempotentAndConcurrent(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	pool := newPool(t, nil)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			c, err := worker.New(pool, nil, worker.WithSchema(schema))
			if err == nil {
				err = c.Migrate(t.Context())
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	c, err := worker.New(pool, nil, worker.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, c.Migrate(t.Context()))
	var n int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM `+pgx.Identifier{schema, "stategraph_worker_migrations"}.Sanitize()).Scan(&n))
	require.Equal(t, worker.SchemaVersion, n)
}

func TestFollowStopsWhenTheCallerBreaks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("f", "a")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"))
	ctx := t.Context()
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "f", Input: DocInput{Topic: "f"}, RunID: uuid.NewString()})
	require.NoError(t, err)
	g.await(t)
	for ev, err := range c.Follow(ctx, id) {
		require.NoError(t, err)
		require.Equal(t, worker.EventCheckpoint, ev.Kind, "the input checkpoint comes first")
		break
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	var last error
	for _, err := range c.Follow(short, id) {
		last = err
	}
	require.ErrorIs(t, last, context.DeadlineExceeded, "a follow ends with its context")
	close(g.release)
	require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
}

func TestPruneRunsDeletesOnlyOldEndedRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	idle := e.client(nil, worker.WithQueue("idle")) // nobody works this queue
	ctx := t.Context()

	var ended []string
	for _, thread := range []string{"old-1", "old-2", "recent"} {
		id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: thread, Input: DocInput{Topic: thread}})
		require.NoError(t, err)
		run, err := c.Wait(ctx, id)
		require.NoError(t, err)
		require.Equal(t, worker.StatusSuccess, run.Status)
		ended = append(ended, id)
	}
	pending, err := idle.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "waiting", Input: DocInput{Topic: "waiting"}})
	require.NoError(t, err)

	// Everything but "recent" was last updated two hours ago.
	runs := pgx.Identifier{e.schema, "stategraph_runs"}.Sanitize()
	_, err = e.pool.Exec(ctx, `UPDATE `+runs+` SET updated_at = now() - interval '2 hours' WHERE thread_id <> 'recent'`)
	require.NoError(t, err)

	n, err := c.PruneRuns(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for _, id := range ended[:2] {
		_, err := c.Run(ctx, id)
		require.ErrorIs(t, err, worker.ErrNotFound, "run %s", id)
	}
	_, err = c.Run(ctx, ended[2])
	require.NoError(t, err, "a recent run stays")
	run, err := c.Run(ctx, pending)
	require.NoError(t, err, "an active run stays, however old")
	require.Equal(t, worker.StatusPending, run.Status)

	// The threads' checkpoints are untouched.
	snap, err := e.pipeline(nil).State(ctx, graph.WithThread("old-1"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "d"}, snap.Values.Trail)

	n, err = c.PruneRuns(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.Zero(t, n)
}

// A worker refuses to start on tables older than it expects, saying to
// call Migrate, instead of failing runs one by one.
func TestStartRefusesAnOlderSchema(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reg := worker.NewRegistry()
	worker.Register(reg, "noop", compilePipeline(t, memory.New(), nil, "", nil), worker.JSONInput(docInput))

	pool := newPool(t, nil)
	c, err := worker.New(pool, reg, worker.WithSchema(newSchema(t)), worker.WithSaver(memory.New()))
	require.NoError(t, err)
	require.ErrorContains(t, c.Start(ctx), "has Migrate run?")

	e := newEnv(t)
	_, err = e.pool.Exec(ctx, `DELETE FROM `+pgx.Identifier{e.schema, "stategraph_worker_migrations"}.Sanitize()+` WHERE version = $1`, worker.SchemaVersion)
	require.NoError(t, err)
	c, err = worker.New(e.pool, reg, worker.WithSchema(e.schema), worker.WithSaver(e.saver))
	require.NoError(t, err)
	err = c.Start(ctx)
	require.ErrorContains(t, err, fmt.Sprintf("schema version %d, this worker needs %d: call Migrate first", worker.SchemaVersion-1, worker.SchemaVersion))
}
