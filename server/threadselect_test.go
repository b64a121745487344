package server_test

import (
	"context"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stretchr/testify/require"
)

// countingSaver counts the checkpoint reads of the savers it wraps.
type countingSaver struct {
	checkpoint.Saver
	gets atomic.Int64
}

func (c *countingSaver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	c.gets.Add(1)
	return c.Saver.Get(ctx, cfg)
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestSearchThreadsSelectReadsNoStateForRecordFields(t *testing.T) {
	t.Parallel()
	saver := &countingSaver{Saver: memory.New()}
	h := newHarnessOn(t, saver)
	th := h.json("POST", "/threads", map[string]any{"metadata": map[string]any{"user": "ann"}}, 200)
	h.json("POST", "/threads/"+th["thread_id"].(string)+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)

	before := saver.gets.Load()
	got := h.list("POST", "/threads/search", map[string]any{"select": []string{"thread_id", "created_at", "updated_at", "metadata"}})
	require.Len(t, got, 1)
	require.Equal(t, []string{"created_at", "metadata", "thread_id", "updated_at"}, keysOf(got[0]))
	require.Equal(t, "ann", got[0]["metadata"].(map[string]any)["user"])
	require.Equal(t, before, saver.gets.Load(), "a search selecting no state field read a checkpoint")

	n := h.list("POST", "/threads/search", map[string]any{"select": []string{"thread_id", "values"}})
	require.Equal(t, []string{"thread_id", "values"}, keysOf(n[0]))
	require.Equal(t, []any{"echo: hi"}, n[0]["values"].(map[string]any)["replies"])
	require.Greater(t, saver.gets.Load(), before, "values were answered without reading the state")

	// A values filter reads the state without answering it.
	f := h.list("POST", "/threads/search", map[string]any{"values": map[string]any{"input": "hi"}, "select": []string{"thread_id"}})
	require.Equal(t, []map[string]any{{"thread_id": th["thread_id"]}}, f)

	// Without select, every field.
	all := h.list("POST", "/threads/search", map[string]any{})
	require.Equal(t, []string{"config", "created_at", "error", "interrupts", "metadata", "state_updated_at", "status", "thread_id", "updated_at", "values"}, keysOf(all[0]))
}

func TestCountThreadsReadsNoStateWithoutStateFilters(t *testing.T) {
	t.Parallel()
	saver := &countingSaver{Saver: memory.New()}
	h := newHarnessOn(t, saver)
	th := h.json("POST", "/threads", map[string]any{}, 200)
	h.json("POST", "/threads/"+th["thread_id"].(string)+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	before := saver.gets.Load()
	code, body := h.do("POST", "/threads/count", map[string]any{})
	require.Equal(t, 200, code, "%s", body)
	require.JSONEq(t, "1", string(body))
	require.Equal(t, before, saver.gets.Load())
}

func TestSearchThreadsSelectRefusesAnUnknownField(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code, body := h.do("POST", "/threads/search", map[string]any{"select": []string{"thread_id", "colour"}})
	require.Equal(t, 422, code, "%s", body)
	require.Contains(t, detail(t, body), `"colour"`)
	require.Contains(t, detail(t, body), "select")
}
