package telemetry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

// doc is the state of the test graphs: N a sum, Trail the nodes that ran.
type doc struct {
	N     int
	Trail []string
}

var (
	nF     = state.Sum("n", func(d *doc) *int { return &d.N })
	trailF = state.Append("trail", func(d *doc) *[]string { return &d.Trail })
	docs   = state.NewSchema(nF, trailF)
)

func visit(name string) graph.NodeFunc[doc] {
	return func(ctx context.Context, d doc) (state.Update[doc], error) {
		return state.Writes(trailF.Set([]string{name}), nF.Set(1)), nil
	}
}

func compile(t *testing.T, g *graph.StateGraph[doc], opts ...graph.CompileOption) *graph.Compiled[doc] {
	t.Helper()
	c, err := g.Compile(opts...)
	require.NoError(t, err)
	return c
}

func TestSpansFormARunStepTaskCheckpointTree(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	g := graph.New(docs).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c").AddEdge("b", graph.End).AddEdge("c", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr), graph.WithName("fan"))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t1"), graph.WithRunID("r1"))
	require.NoError(t, err)

	tree := tr.tree()
	assert.Equal(t, []string{
		"run fan",
		"run fan > checkpoint input",
		"run fan > checkpoint loop",
		"run fan > step",
		"run fan > step > checkpoint loop",
		"run fan > step > task a",
		"run fan > step > task b",
		"run fan > step > task c",
	}, tree.paths())
	run := tree.one(t, "run fan")
	assert.False(t, run.Parent.IsValid(), "a call without a span in its context starts a trace")
	snap, err := c.State(t.Context(), graph.WithThread("t1"))
	require.NoError(t, err)
	for k, want := range map[string]any{
		"stategraph.thread.id": "t1", "stategraph.run.id": "r1", "stategraph.graph.name": "fan",
		"stategraph.outcome": "success", "stategraph.run.steps": int64(2), "stategraph.checkpoint.id": snap.Config.CheckpointID,
	} {
		v, ok := attr(run, attributeKey(k))
		require.True(t, ok, k)
		assert.Equal(t, want, v.AsInterface(), k)
	}
	from, ok := attr(run, telemetry.KeyFrom)
	require.True(t, ok)
	assert.NotEmpty(t, from.AsString())

	steps := tree.named("step")
	require.Len(t, steps, 2)
	byStep := map[int64]*tracetest.SpanStub{}
	for _, s := range steps {
		v, _ := attr(s, telemetry.KeyStep)
		byStep[v.AsInt64()] = s
	}
	nodes, _ := attr(byStep[2], telemetry.KeyStepNodes)
	assert.Equal(t, []string{"b", "c"}, nodes.AsStringSlice())
	b := tree.one(t, "task b")
	assert.Equal(t, byStep[2].SpanContext.SpanID(), b.Parent.SpanID())
	for k, want := range map[string]any{"stategraph.node": "b", "stategraph.step": int64(2), "stategraph.task.attempts": int64(1),
		"stategraph.task.retries": int64(0), "stategraph.task.writes": int64(2), "stategraph.outcome": "success"} {
		v, ok := attr(b, attributeKey(k))
		require.True(t, ok, k)
		assert.Equal(t, want, v.AsInterface(), k)
	}
	id, _ := attr(b, telemetry.KeyTask)
	assert.NotEmpty(t, id.AsString())

	for _, s := range tree.named("checkpoint loop") {
		saver, _ := attr(s, telemetry.KeySaver)
		assert.Equal(t, "memory.Saver", saver.AsString())
		bytes, _ := attr(s, telemetry.KeyBytes)
		assert.Positive(t, bytes.AsInt64())
		dur, _ := attr(s, telemetry.KeyDurability)
		assert.Equal(t, "sync", dur.AsString())
	}
	for i := range tree.spans {
		assert.Equal(t, run.SpanContext.TraceID(), tree.spans[i].SpanContext.TraceID(), "one trace per call")
	}
}

func TestTaskSpansRecordRetriesErrorsAndInterrupts(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	var tries atomic.Int32
	g := graph.New(docs).
		AddNode("flaky", func(ctx context.Context, d doc) (state.Update[doc], error) {
			if tries.Add(1) < 3 {
				return state.Update[doc]{}, errors.New("transient")
			}
			return state.Writes(nF.Set(1)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: 1})).
		AddNode("ask", func(ctx context.Context, d doc) (state.Update[doc], error) {
			answer, err := graph.Interrupt[string](ctx, map[string]string{"question": "ship from B?"})
			if err != nil {
				return state.Update[doc]{}, err
			}
			return state.Writes(trailF.Set([]string{answer})), nil
		}).
		AddNode("boom", func(ctx context.Context, d doc) (state.Update[doc], error) {
			return state.Update[doc]{}, errors.New("broken")
		}).
		AddEdge(graph.Start, "flaky").AddEdge("flaky", "ask").AddEdge("ask", "boom").AddEdge("boom", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)

	tree := tr.tree()
	flaky := tree.one(t, "task flaky")
	attempts, _ := attr(flaky, telemetry.KeyAttempts)
	retries, _ := attr(flaky, telemetry.KeyRetries)
	assert.Equal(t, int64(3), attempts.AsInt64())
	assert.Equal(t, int64(2), retries.AsInt64())
	assert.Equal(t, codes.Unset, flaky.Status.Code)

	ask := tree.one(t, "task ask")
	assert.Equal(t, []string{telemetry.EventInterrupt}, events(ask))
	ev := ask.Events[0]
	assert.Equal(t, ie.Interrupts[0].ID, attrOf(ev.Attributes, telemetry.KeyInterruptID).AsString())
	assert.Equal(t, "during", attrOf(ev.Attributes, telemetry.KeyInterruptWhen).AsString())
	assert.JSONEq(t, `{"question":"ship from B?"}`, attrOf(ev.Attributes, telemetry.KeyInterruptValue).AsString())
	assert.Equal(t, codes.Unset, ask.Status.Code, "an interrupt is not a failure")
	out, _ := attr(tree.one(t, "run"), telemetry.KeyOutcome)
	assert.Equal(t, telemetry.OutcomeInterrupted, out.AsString())

	tr.spans.Reset()
	_, err = c.Invoke(t.Context(), state.Update[doc]{}, graph.WithThread("t"), graph.Resume("yes"))
	require.Error(t, err)
	tree = tr.tree()
	boom := tree.one(t, "task boom")
	assert.Equal(t, codes.Error, boom.Status.Code)
	assert.Contains(t, boom.Status.Description, "broken")
	assert.Equal(t, []string{"exception"}, events(boom))
	run := tree.one(t, "run")
	assert.Equal(t, codes.Error, run.Status.Code)
	out, _ = attr(run, telemetry.KeyOutcome)
	assert.Equal(t, telemetry.OutcomeError, out.AsString())
}

func TestStaticInterruptIsAnEventOfTheRun(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	g := graph.New(docs).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"), graph.InterruptBefore("b"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	run := tr.tree().one(t, "run")
	require.Equal(t, []string{telemetry.EventInterrupt}, events(run))
	assert.Equal(t, "before", attrOf(run.Events[0].Attributes, telemetry.KeyInterruptWhen).AsString())
	assert.Equal(t, "b", attrOf(run.Events[0].Attributes, telemetry.KeyNode).AsString())
}

func TestSubgraphRunNestsUnderItsTask(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	inner := compile(t, graph.New(docs).AddNode("x", visit("x")).AddEdge(graph.Start, "x").AddEdge("x", graph.End), graph.WithName("inner"))
	g := graph.New(docs).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub").AddEdge("sub", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr), graph.WithName("outer"))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	tree := tr.tree()
	x := tree.one(t, "task x")
	assert.Equal(t, "run outer > step > task sub > run inner > step > task x", tree.path(x))
	innerRun := tree.one(t, "run inner")
	node, _ := attr(innerRun, telemetry.KeyParentNode)
	assert.Equal(t, "sub", node.AsString())
	ns, _ := attr(x, telemetry.KeyNamespace)
	assert.Contains(t, ns.AsString(), "sub:")
}

func TestOffWithoutProvidersMakesNoSpansAndNoMetadata(t *testing.T) {
	t.Parallel()
	tel := telemetry.New()
	assert.False(t, tel.Tracing())
	saver := memory.New()
	c := compile(t, graph.New(docs).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge("a", graph.End),
		graph.WithCheckpointer(saver), graph.WithObserver(tel))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	assert.NotContains(t, snap.Metadata.Extra, "traceparent")
	assert.Nil(t, tel.CheckpointMetadata(t.Context()))
}

func TestObserverIsNilWhenOff(t *testing.T) {
	t.Parallel()
	assert.Nil(t, telemetry.New().Observer())
	tr := newTraced(t)
	assert.NotNil(t, tr.Observer())
}
