package worker_test

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestRestartedWorkerProcessTakesItsKilledRunsBackAtOnce: a single worker
// process killed with runs in flight and started again on the same
// machine finds, as it starts, that its predecessor's process has ended,
// and re-queues that worker's runs at once, rather than after its silence
// passed the dead-after limit (8 s). Each run resumes from its last
// checkpoint: no finished node runs again.
func TestRestartedWorkerProcessTakesItsKilledRunsBackAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("a process is known ended only on Linux; elsewhere dead-after rules")
	}
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	victim := startWorker(t, e.schema, true)
	enq, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithPollInterval(100*time.Millisecond))
	require.NoError(t, err)
	ids := make([]string, victimSlots)
	inputs := make([]DocInput, victimSlots)
	for i := range victimSlots {
		inputs[i] = DocInput{Topic: fmt.Sprintf("restart-%02d", i), Add: i}
		ids[i], err = enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: inputs[i].Topic, Input: inputs[i]})
		require.NoError(t, err)
	}
	blocked := 0
	for blocked < victimSlots {
		line, ok := <-victim.lines
		require.True(t, ok, "the victim ended before taking its runs")
		require.True(t, strings.HasPrefix(line, "blocked "), line)
		blocked++
	}
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	for line := range victim.lines {
		require.Fail(t, "the victim said more after parking its runs", line)
	}

	restarted := time.Now()
	startWorker(t, e.schema, false)
	var slowest time.Duration
	for i, id := range ids {
		r := wait(t, enq, id)
		require.Equal(t, worker.StatusSuccess, r.Status, "run %s: %s", id, r.Error)
		slowest = max(slowest, r.UpdatedAt.Sub(restarted))
		require.Equal(t, reference(t, inputs[i], 1), result(t, r), "thread %s ends as an uninterrupted run would", inputs[i].Topic)
		require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog(inputs[i].Topic), "no finished node ran twice on %s", inputs[i].Topic)
	}
	t.Logf("the killed worker's %d runs were finished %s after the restart began (dead-after %s)", victimSlots, slowest.Round(time.Millisecond), worker.DefaultDeadAfter)
	require.Less(t, slowest, worker.DefaultDeadAfter/2, "taken back at the restart, not after the dead worker's silence")
}
