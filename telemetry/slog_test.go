package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

func TestLogRecordsCarryTheRunAndTheSpan(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	var buf bytes.Buffer
	log := slog.New(telemetry.NewHandler(slog.NewJSONHandler(&buf, nil))).With("app", "test")
	g := graph.New(docs).AddNode("write", func(ctx context.Context, d doc) (state.Update[doc], error) {
		log.InfoContext(ctx, "writing", "n", d.N)
		return state.Writes(nF.Set(1)), nil
	}).AddEdge(graph.Start, "write").AddEdge("write", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t7"), graph.WithRunID("r7"))
	require.NoError(t, err)
	log.InfoContext(t.Context(), "outside")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2)
	var in, out map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &in))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &out))
	task := tr.tree().one(t, "task write")
	assert.Equal(t, "t7", in["stategraph.thread.id"])
	assert.Equal(t, "r7", in["stategraph.run.id"])
	assert.Equal(t, float64(1), in["stategraph.step"])
	assert.Equal(t, "write", in["stategraph.node"])
	assert.NotEmpty(t, in["stategraph.task.id"])
	assert.Equal(t, "test", in["app"])
	assert.Equal(t, task.SpanContext.TraceID().String(), in[telemetry.LogTraceID])
	assert.Equal(t, task.SpanContext.SpanID().String(), in[telemetry.LogSpanID])
	assert.NotContains(t, out, "stategraph.node", "a record outside a node carries no run")
	assert.NotContains(t, out, telemetry.LogTraceID)
}
