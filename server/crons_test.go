package server_test

import (
	"testing"
	"time"

	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tick makes the server check its crons at now, and returns once it has
// (the second send waits for the first to be handled).
func tick(ticks chan time.Time, now time.Time) {
	ticks <- now
	ticks <- now
}

func TestCronOnAThreadStartsARunWhenDue(t *testing.T) {
	t.Parallel()
	ticks := make(chan time.Time)
	h := newHarness(t, server.WithCronTicks(ticks))
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	c := h.json("POST", "/threads/t/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "*/5 * * * *", "input": map[string]any{"input": "tick"}, "metadata": map[string]any{"k": "v"}}, 200)
	assert.Equal(t, "t", c["thread_id"])
	assert.Equal(t, true, c["enabled"])
	next, err := time.Parse(time.RFC3339Nano, c["next_run_date"].(string))
	require.NoError(t, err)
	assert.Zero(t, next.Minute()%5)

	tick(ticks, next.Add(-time.Second))
	assert.Empty(t, h.list("GET", "/threads/t/runs", nil), "not due yet")
	tick(ticks, next)
	runs := h.list("GET", "/threads/t/runs", nil)
	require.Len(t, runs, 1)
	out := h.json("GET", "/threads/t/runs/"+runs[0]["run_id"].(string)+"/join", nil, 200)
	assert.Equal(t, []any{"echo: tick"}, out["replies"])
	tick(ticks, next.Add(time.Minute))
	assert.Len(t, h.list("GET", "/threads/t/runs", nil), 1, "once per due time")

	found := h.list("POST", "/runs/crons/search", map[string]any{"thread_id": "t"})
	require.Len(t, found, 1)
	cid := c["cron_id"].(string)
	patched := h.json("PATCH", "/runs/crons/"+cid, map[string]any{"enabled": false}, 200)
	assert.Equal(t, false, patched["enabled"])
	tick(ticks, next.Add(time.Hour))
	assert.Len(t, h.list("GET", "/threads/t/runs", nil), 1, "a disabled cron does not fire")
	code, _ := h.do("DELETE", "/runs/crons/"+cid, nil)
	assert.Equal(t, 204, code)
	assert.Empty(t, h.list("POST", "/runs/crons/search", map[string]any{}))
}

func TestCronWithoutAThreadRunsOnANewThreadEachTime(t *testing.T) {
	t.Parallel()
	ticks := make(chan time.Time)
	h := newHarness(t, server.WithCronTicks(ticks))
	c := h.json("POST", "/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "0 * * * *", "input": map[string]any{"input": "hourly"}, "on_run_completed": "keep"}, 200)
	assert.Nil(t, c["thread_id"])
	next, err := time.Parse(time.RFC3339Nano, c["next_run_date"].(string))
	require.NoError(t, err)
	tick(ticks, next)
	threads := h.list("POST", "/threads/search", map[string]any{})
	require.Len(t, threads, 1)
	tid := threads[0]["thread_id"].(string)
	runs := h.list("GET", "/threads/"+tid+"/runs", nil)
	require.Len(t, runs, 1)
	out := h.json("GET", "/threads/"+tid+"/runs/"+runs[0]["run_id"].(string)+"/join", nil, 200)
	assert.Equal(t, []any{"echo: hourly"}, out["replies"])
}

func TestCronBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		name   string
		path   string
		body   map[string]any
		code   int
		detail string
	}{
		{"no schedule", "/runs/crons", map[string]any{"assistant_id": "echo"}, 422, "schedule"},
		{"bad schedule", "/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "every day"}, 422, "schedule"},
		{"unknown assistant", "/runs/crons", map[string]any{"assistant_id": "nope", "schedule": "* * * * *"}, 404, `"nope"`},
		{"unknown thread", "/threads/none/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "* * * * *"}, 404, `"none"`},
		{"bad input", "/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "* * * * *", "input": map[string]any{"x": 1}}, 422, `field "x"`},
		{"bad timezone", "/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "* * * * *", "timezone": "Mars/Olympus"}, 422, "timezone"},
	}
	for _, tt := range tests {
		code, body := h.do("POST", tt.path, tt.body)
		assert.Equal(t, tt.code, code, "%s: %s", tt.name, body)
		assert.Contains(t, detail(t, body), tt.detail, tt.name)
	}
	code, _ := h.do("PATCH", "/runs/crons/none", map[string]any{})
	assert.Equal(t, 404, code)
}
