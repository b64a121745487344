package worker_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// TestRetriedResumeRunKeepsItsAnswers: a run answers two pending
// interrupts (ResumeByID). ask1 finishes and its writes are saved as
// pending writes of the thread's interrupted checkpoint; ask2 is cut short
// by the run timeout (a transient failure), so River retries the run. No
// checkpoint of the run was saved, so the retry applies the answers again,
// but ask1's interrupt is no longer pending: the retry fails for good with
// graph.ErrNothingToResume instead of resuming (at-least-once execution,
// exactly-once effect per finished node).
func TestRetriedResumeRunKeepsItsAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ask2 atomic.Int32
	app := e.asks(func(ctx context.Context, node string) error {
		if node == "ask2" && ask2.Add(1) == 1 {
			<-ctx.Done() // the first attempt runs out of time here
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(app, "asks"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "asks", Thread: "ra", Input: DocInput{Topic: "ra"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
	require.Len(t, r.Interrupts, 2)

	id2, err := c.Enqueue(ctx, worker.Request{Graph: "asks", Thread: "ra", ResumeByID: answers(r)})
	require.NoError(t, err)
	r2 := wait(t, c, id2)
	require.Equal(t, worker.StatusSuccess, r2.Status, r2.Error)
	require.Equal(t, 2, r2.Attempts, "the first attempt timed out, the second resumed")
	trail := result(t, r2).Trail
	slices.Sort(trail)
	require.Equal(t, []string{"ask1:ask1-yes", "ask2:ask2-yes"}, trail)
}

// TestRetriedPositionalAnswerIsNotGivenToTheNextInterrupt: a run answers
// the one pending interrupt with a positional value. Its node takes the
// answer and asks a second question (saved), while a sibling of the same
// step runs out of time, so River retries the run. The retry must not
// answer the second question with the first answer: the answer was pinned
// to the interrupt it answered, which is no longer pending.
func TestRetriedPositionalAnswerIsNotGivenToTheNextInterrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var slowCalls atomic.Int32
	g := graph.New(docs).
		AddNode("ask", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			first, err := graph.Interrupt[string](ctx, "first?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			second, err := graph.Interrupt[string](ctx, "second?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			return state.Writes(trailF.Set([]string{"ask:" + first + "," + second})), nil
		}).
		AddNode("slow", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			switch slowCalls.Add(1) {
			case 1:
				return state.Update[Doc]{}, errors.New("down") // ends the first run
			case 2:
				<-ctx.Done() // the resume run's first attempt runs out of time
				return state.Update[Doc]{}, ctx.Err()
			}
			return state.Writes(trailF.Set([]string{"slow"})), nil
		}).
		AddEdge(graph.Start, "ask").AddEdge(graph.Start, "slow")
	app, err := g.Compile(graph.WithCheckpointer(e.saver))
	require.NoError(t, err)
	c := e.client(registry(app, "two-questions"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Input: DocInput{Topic: "tq"}})
	require.NoError(t, err)
	require.Equal(t, worker.StatusError, wait(t, c, id).Status)

	id, err = c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Resume: "A"})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
	require.Equal(t, 2, r.Attempts)
	require.Len(t, r.Interrupts, 1)
	require.Equal(t, "second?", r.Interrupts[0].Value, "the retry did not answer the second question with A")

	id, err = c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Resume: "B"})
	require.NoError(t, err)
	r = wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	trail := result(t, r).Trail
	slices.Sort(trail)
	require.Equal(t, []string{"ask:A,B", "slow"}, trail)
}

// TestResumeNeedsExactlyTheInterruptsItAnswers: answering a thread that has no pending
// interrupt fails the run (and leaves the thread as it was); one value
// for two pending interrupts is ambiguous; an interrupt is answered once.
func TestResumeNeedsExactlyTheInterruptsItAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := worker.NewRegistry()
	worker.Register(reg, "review", e.review(), worker.JSONInput(docInput))
	worker.Register(reg, "asks", e.asks(nil), worker.JSONInput(docInput))
	c := e.client(reg)
	ctx := t.Context()

	run := func(t *testing.T, req worker.Request) *worker.Run {
		t.Helper()
		id, err := c.Enqueue(ctx, req)
		require.NoError(t, err)
		return wait(t, c, id)
	}

	t.Run("finished thread", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "review", Thread: "done", Input: DocInput{Topic: "done"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		require.Equal(t, worker.StatusSuccess, run(t, worker.Request{Graph: "review", Thread: "done", Resume: "yes"}).Status)
		r = run(t, worker.Request{Graph: "review", Thread: "done", Resume: "again"})
		require.Equal(t, worker.StatusError, r.Status)
		require.ErrorContains(t, r.Err(), "nothing to resume")
		require.ErrorContains(t, r.Err(), `"done"`)
		require.Equal(t, 1, r.Attempts, "not retried")
	})

	t.Run("two pending, one value", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "asks", Thread: "two", Input: DocInput{Topic: "two"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		require.Len(t, r.Interrupts, 2)
		bad := run(t, worker.Request{Graph: "asks", Thread: "two", Resume: "yes"})
		require.Equal(t, worker.StatusError, bad.Status)
		require.ErrorContains(t, bad.Err(), "ambiguous")
		// The failed answer left the thread as it was.
		ok := run(t, worker.Request{Graph: "asks", Thread: "two", ResumeByID: answers(r)})
		require.Equal(t, worker.StatusSuccess, ok.Status, ok.Error)
		trail := result(t, ok).Trail
		slices.Sort(trail)
		require.Equal(t, []string{"ask1:ask1-yes", "ask2:ask2-yes"}, trail)
	})

	t.Run("answered twice", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "review", Thread: "twice", Input: DocInput{Topic: "twice"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		var ids []string
		for _, ans := range []string{"first", "second"} {
			id, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "twice", Resume: ans, Strategy: worker.Enqueue})
			require.NoError(t, err)
			ids = append(ids, id)
		}
		first, second := wait(t, c, ids[0]), wait(t, c, ids[1])
		require.Equal(t, worker.StatusSuccess, first.Status, first.Error)
		require.Equal(t, "first", result(t, first).Answer)
		require.Equal(t, worker.StatusError, second.Status)
		require.ErrorContains(t, second.Err(), "nothing to resume")
		snap, err := e.review().State(ctx, graph.WithThread("twice"))
		require.NoError(t, err)
		require.Equal(t, "first", snap.Values.Answer)
		require.Equal(t, []string{"draft", "ask"}, snap.Values.Trail)
	})
}

// TestResumeOnAThreadThatNeverRanFails: a run that only answers an
// interrupt (Resume, no input) on a thread with no checkpoint has nothing
// to answer. It should fail like any answer without a pending interrupt;
// instead the answer is dropped silently and the graph starts from its
// entry with a zero input.
func TestResumeOnAThreadThatNeverRanFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.review(), "review"))
	id, err := c.Enqueue(t.Context(), worker.Request{Graph: "review", Thread: "empty", Resume: "yes"})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusError, r.Status, "ran: %s", r.Result)
	require.ErrorContains(t, r.Err(), "nothing to resume")
}
