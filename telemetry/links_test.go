package telemetry_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

func TestResumedRunLinksToTheRunItContinues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		outcome string
		// crash makes the first run of b end the run: fail, or cancel the
		// run's context as a dying process would.
		crash func(ctx context.Context, cancel context.CancelFunc) error
	}{
		{"node fails", telemetry.OutcomeError, func(context.Context, context.CancelFunc) error { return errors.New("worker died") }},
		{"context cancelled", telemetry.OutcomeCancelled, func(ctx context.Context, cancel context.CancelFunc) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTraced(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var first atomic.Bool
			first.Store(true)
			g := graph.New(docs).AddNode("a", visit("a")).
				AddNode("b", func(ctx context.Context, d doc) (state.Update[doc], error) {
					if first.CompareAndSwap(true, false) {
						return state.Update[doc]{}, tc.crash(ctx, cancel)
					}
					return state.Writes(trailF.Set([]string{"b"})), nil
				}).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", graph.End)
			c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr))
			_, err := c.Invoke(ctx, state.Writes(nF.Set(1)), graph.WithThread("t"))
			require.Error(t, err)
			crashed := tr.tree().one(t, "run")
			out, _ := attr(crashed, telemetry.KeyOutcome)
			assert.Equal(t, tc.outcome, out.AsString())
			snap, err := c.State(t.Context(), graph.WithThread("t"))
			require.NoError(t, err)
			tp, _ := snap.Metadata.Extra["traceparent"].(string)
			assert.Contains(t, tp, crashed.SpanContext.TraceID().String(), "the checkpoint carries the run's trace context")

			tr.spans.Reset()
			out2, err := c.Invoke(t.Context(), state.Update[doc]{}, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b"}, out2.Trail)
			tree := tr.tree()
			resumed := tree.one(t, "run")
			assert.NotEqual(t, crashed.SpanContext.TraceID(), resumed.SpanContext.TraceID(), "each call is a trace of its own")
			require.Len(t, resumed.Links, 1)
			assert.Equal(t, crashed.SpanContext.TraceID(), resumed.Links[0].SpanContext.TraceID())
			assert.Equal(t, crashed.SpanContext.SpanID(), resumed.Links[0].SpanContext.SpanID())
			assert.Equal(t, telemetry.LinkPreviousRun, attrOf(resumed.Links[0].Attributes, telemetry.KeyLink).AsString())
			assert.Empty(t, tree.named("task a"), "a finished in the crashed run and does not run again")
			assert.Len(t, tree.named("task b"), 1)
			for _, p := range tree.paths() {
				assert.True(t, strings.HasPrefix(p, "run"), p)
			}
		})
	}
}

func TestCallerSpanParentsTheRun(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	c := compile(t, graph.New(docs).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge("a", graph.End),
		graph.WithCheckpointer(memory.New()), graph.WithObserver(tr))
	ctx, req := tr.tp.Tracer("test").Start(t.Context(), "POST /runs")
	_, err := c.Invoke(ctx, state.Writes(nF.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	req.End()
	tree := tr.tree()
	assert.Equal(t, "POST /runs > run > step > task a", tree.path(tree.one(t, "task a")))
}
