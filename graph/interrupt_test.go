package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestInterruptBeforeAndAfter(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "b", ie.Interrupts[0].Node)
	require.Equal(t, "before", ie.Interrupts[0].When)
	require.Equal(t, []string{"a"}, out.Trail)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, snap.Next)
	// As LangGraph's (state.interrupts == ()), a static breakpoint records
	// no interrupt in the thread or its task: b is simply next.
	require.Empty(t, snap.Interrupts)
	require.Len(t, snap.Tasks, 1)
	require.Empty(t, snap.Tasks[0].Interrupts)
	require.True(t, snap.Tasks[0].Breakpoint, "the task says the run stopped before it")

	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.InterruptAfter("b"))
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "after", ie.Interrupts[0].When)
	require.Equal(t, []string{"a", "b"}, out.Trail)

	snap, err = c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Len(t, snap.Tasks, 1)
	require.False(t, snap.Tasks[0].Breakpoint, "c has no breakpoint before it")

	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
}

func TestDynamicInterruptAndResume(t *testing.T) {
	t.Parallel()
	var reviewCalls atomic.Int64
	g := graph.New(schema).
		AddNode("draft", visit("draft")).
		AddNode("review", func(ctx context.Context, s counter) (state.Update[counter], error) {
			reviewCalls.Add(1)
			ok, err := graph.Interrupt[bool](ctx, map[string]any{"question": "publish?", "trail": s.Trail})
			if err != nil {
				return state.Update[counter]{}, err
			}
			note, err := graph.Interrupt[string](ctx, "why?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(fmt.Sprintf("%v:%s", ok, note))), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "review")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var interrupts []graph.Interruption
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Interrupts)) {
		require.NoError(t, err)
		interrupts = append(interrupts, ev.Interrupts...)
	}
	require.Len(t, interrupts, 1)
	require.Equal(t, "review", interrupts[0].Node)
	require.Equal(t, map[string]any{"question": "publish?", "trail": []string{"draft"}}, interrupts[0].Value)

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, interrupts[0].ID, snap.Interrupts[0].ID)
	require.Equal(t, map[string]any{"question": "publish?", "trail": []any{"draft"}}, snap.Interrupts[0].Value)

	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume(true))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("looks good"))
	require.NoError(t, err)
	require.Equal(t, "true:looks good", out.Last)
	require.EqualValues(t, 3, reviewCalls.Load())

	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume(1))
	require.ErrorIs(t, err, graph.ErrNothingToResume)
	require.ErrorContains(t, err, "no pending interrupt")
}

func TestPayloadReadsTheNodesTypeFromEitherForm(t *testing.T) {
	t.Parallel()
	type question struct {
		Prompt string `json:"prompt"`
		Max    int    `json:"max"`
	}
	cases := []struct {
		name    string
		value   any
		want    question
		wantErr string
	}{
		{"as given", question{"how many?", 3}, question{"how many?", 3}, ""},
		{"as decoded from a checkpoint", map[string]any{"prompt": "how many?", "max": 3.0}, question{"how many?", 3}, ""},
		{"not that type", "how many?", question{}, `interrupt "i1" of node "ask"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := graph.Payload[question](graph.Interruption{ID: "i1", Node: "ask", Value: c.value})
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// Mirrors test_interruption.py and LangGraph's get_state after stops:
// State().Next and tasks after interrupt_before, a dynamic interrupt, a
// node error, and interrupt_after.
func TestStateNextAfterEachKindOfStop(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		opts       []graph.CompileOption
		bNode      func(cs *calls) graph.NodeFunc[counter]
		wantErr    error
		next       []string
		trail      []string
		interrupts []string // When of each pending interrupt
		taskErr    string
	}{
		{"interrupt before", []graph.CompileOption{graph.WithInterruptBefore("b")}, func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") },
			graph.ErrInterrupted, []string{"b"}, []string{"a"}, nil, ""},
		{"dynamic interrupt", nil, func(cs *calls) graph.NodeFunc[counter] { return askNode(cs, "b") },
			graph.ErrInterrupted, []string{"b"}, []string{"a"}, []string{"during"}, ""},
		{"error", nil, func(cs *calls) graph.NodeFunc[counter] {
			return func(ctx context.Context, s counter) (state.Update[counter], error) {
				return state.Update[counter]{}, errors.New("b broke")
			}
		}, nil, []string{"b"}, []string{"a"}, nil, "b broke"},
		{"interrupt after", []graph.CompileOption{graph.WithInterruptAfter("b")}, func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") },
			graph.ErrInterrupted, []string{"c"}, []string{"a", "b"}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", tc.bNode(&cs)).AddNode("c", cs.track("c")).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
			c := mustCompile(t, g, append([]graph.CompileOption{graph.WithCheckpointer(memory.New())}, tc.opts...)...)
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			snap := latestState(t, c, "t")
			require.Equal(t, tc.next, snap.Next)
			require.Equal(t, tc.trail, snap.Values.Trail)
			var whens []string
			for _, in := range snap.Interrupts {
				whens = append(whens, in.When)
			}
			require.Equal(t, tc.interrupts, whens)
			require.Len(t, snap.Tasks, 1)
			require.Equal(t, tc.next[0], snap.Tasks[0].Node)
			if tc.taskErr != "" {
				require.Contains(t, snap.Tasks[0].Error, tc.taskErr)
			} else {
				require.Empty(t, snap.Tasks[0].Error)
			}
		})
	}
}

// Mirrors test_send_react_interrupt / interrupt_before with Send (PUSH
// tasks are subject to interrupt_before like PULL ones): the run stops
// before the Send tasks run, State lists them as next, and resuming runs
// each with its own argument.
func TestInterruptBeforeSendTargetStopsBeforeEverySend(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("split", cs.track("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "x"}), graph.SendTo("work", counter{Last: "y"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("work"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	for _, in := range ie.Interrupts {
		require.Equal(t, "work", in.Node)
		require.Equal(t, "before", in.When)
	}
	require.Equal(t, 0, cs.get("work"))
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"work", "work"}, snap.Next)
	// LangGraph's state there: the loop checkpoint of step 1 (the router's
	// node ran in step 1), the Send tasks pending without results.
	require.Equal(t, checkpoint.SourceLoop, snap.Metadata.Source)
	require.Equal(t, 1, snap.Metadata.Step)
	require.Len(t, snap.Tasks, 2)
	require.Nil(t, snap.Tasks[0].Result)
	require.False(t, snap.Tasks[0].Done)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y"}, out.Items)
	require.Equal(t, 2, cs.get("work"))
}

// Mirrors test_send_react_interrupt with interrupt_after: a static
// interrupt after a node run by Sends stops after the step of all its
// Sends, with their writes applied; the resume goes on without running
// them again.
func TestInterruptAfterSendTargetStopsAfterAllSends(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("reduce", cs.track("reduce")).
		AddConditionalEdges(graph.Start, graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "x"}), graph.SendTo("work", counter{Last: "y"}), graph.SendTo("work", counter{Last: "z"})}, nil
		}), "work").
		AddEdge("work", "reduce")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptAfter("work"))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.NotEmpty(t, ie.Interrupts)
	for _, in := range ie.Interrupts {
		require.Equal(t, "work", in.Node)
		require.Equal(t, "after", in.When)
	}
	require.Equal(t, []string{"x", "y", "z"}, out.Items)
	require.Equal(t, []string{"reduce"}, latestState(t, c, "t").Next)
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "z"}, out.Items)
	require.Equal(t, []string{"reduce"}, out.Trail)
	require.Equal(t, 3, cs.get("work"))
	require.Equal(t, 1, cs.get("reduce"))
}

// Mirrors test_send_react_interrupt / test_send_dedupe_on_resume: one of
// several Send tasks interrupts; the Sends that finished keep their writes
// and are not run again; the resumed Send runs with its own argument.
func TestInterruptInOneSendTaskKeepsTheOtherSends(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("split", cs.track("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work:" + s.Last)
			if s.Last == "ask" {
				v, err := graph.Interrupt[string](ctx, "answer for "+s.Last)
				if err != nil {
					return state.Update[counter]{}, err
				}
				return state.Writes(itemsField.Set([]string{s.Last + "=" + v})), nil
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "p"}), graph.SendTo("work", counter{Last: "ask"}), graph.SendTo("work", counter{Last: "q"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "answer for ask", ie.Interrupts[0].Value)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"work"}, snap.Next)
	require.Equal(t, []string{"p", "q"}, snap.Values.Items)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("42"))
	require.NoError(t, err)
	require.Equal(t, []string{"p", "ask=42", "q"}, out.Items, "writes apply in Send order")
	require.Equal(t, 1, cs.get("work:p"))
	require.Equal(t, 1, cs.get("work:q"))
	require.Equal(t, 2, cs.get("work:ask"))
	require.Equal(t, 1, cs.get("split"))
}

// In any durability, when the interrupt of an interrupted task cannot be
// saved, the run must not report a resumable interrupt: nothing was stored
// to resume.
func TestUnsavedInterruptIsReportedAsTheSaveError(t *testing.T) {
	t.Parallel()
	errWrites := errors.New("writes lost")
	saver := newRecordingSaver()
	saver.beforeWrites = func(cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
		for _, w := range ws {
			if w.Channel == checkpoint.InterruptChannel {
				return errWrites
			}
		}
		return nil
	}
	var cs calls
	g := graph.New(schema).
		AddNode("ok", cs.track("ok")).
		AddNode("ask", askNode(&cs, "ask")).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, errWrites)
}

// Mirrors LangGraph's Command(resume=…, update=…): a resume value given
// with an input answers the pending interrupt, and the input is applied
// before the node runs again (it reads it), with no input checkpoint.
func TestResumeWithInputAnswersTheInterruptAndAppliesTheInput(t *testing.T) {
	t.Parallel()
	var seen string
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			seen = s.Last
			return state.Writes(itemsField.Set([]string{v})), nil
		}).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("first")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Writes(lastField.Set("edited"), trailField.Overwrite([]string{"x"})), graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err)
	require.Equal(t, []string{"ann"}, out.Items, "the node got its answer")
	require.Equal(t, "edited", out.Last, "the input was applied")
	require.Equal(t, "edited", seen, "before the node ran again")
	require.Equal(t, []string{"x"}, out.Trail)
	var sources []checkpoint.Source
	for _, s := range history(t, c, "t") {
		sources = append(sources, s.Metadata.Source)
	}
	require.Equal(t, []checkpoint.Source{checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceInput}, sources, "a resume writes no input checkpoint")
	fresh := mustCompile(t, g, graph.WithCheckpointer(c.Checkpointer()))
	require.Equal(t, out, latestState(t, fresh, "t").Values)
}

// Interrupt[any] returns each answer decoded, also the earlier ones a node
// gets again when it re-runs for a later Interrupt (stored as JSON in the
// checkpoint), as LangGraph's interrupt() returns the resume values.
func TestInterruptAnyReturnsDecodedEarlierAnswers(t *testing.T) {
	t.Parallel()
	var got []any
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			got = got[:0]
			for _, q := range []string{"first?", "second?"} {
				v, err := graph.Interrupt[any](ctx, q)
				if err != nil {
					return state.Update[counter]{}, err
				}
				got = append(got, v)
			}
			return state.Update[counter]{}, nil
		}).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume(map[string]any{"ok": true}))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("two"))
	require.NoError(t, err)
	require.Equal(t, []any{map[string]any{"ok": true}, "two"}, got)
}
