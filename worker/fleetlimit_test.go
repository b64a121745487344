package worker_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestFleetLimitBoundsRunsAcrossClients: three Clients of three workers
// each, bounded by WithFleetLimit(2), never execute more than two runs at
// once between them, and do reach two; every run completes.
func TestFleetLimitBoundsRunsAcrossClients(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	const bound, runs = 2, 6

	var (
		mu       sync.Mutex
		cur, top int
		clients  []*worker.Client
		overHeld []string
	)
	entered := make(chan string, runs)
	release := make(chan struct{})
	h := func(ctx context.Context, topic, node string) error {
		if node != "c" { // once a run, while it holds its slot
			return nil
		}
		mu.Lock()
		cur++
		top = max(top, cur)
		held := 0
		for _, c := range clients {
			h, _ := c.Slots()
			held += h
		}
		if held > bound {
			overHeld = append(overHeld, fmt.Sprintf("%d slots held at once", held))
		}
		mu.Unlock()
		entered <- topic
		select {
		case <-release:
		case <-ctx.Done():
		}
		mu.Lock()
		cur--
		mu.Unlock()
		return nil
	}
	reg := registry(e.pipeline(h), "pipeline")
	mu.Lock()
	for range 3 {
		clients = append(clients, e.client(reg, worker.WithWorkers(3), worker.WithFleetLimit(bound), worker.WithHeartbeat(50*time.Millisecond, 2*time.Second)))
	}
	mu.Unlock()

	ids := make([]string, runs)
	for i := range ids {
		id, err := clients[0].Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: fmt.Sprintf("bound-%d", i), Input: DocInput{Topic: fmt.Sprintf("bound-%d", i)}})
		require.NoError(t, err)
		ids[i] = id
	}
	for range bound {
		<-entered
	}
	for range runs - bound {
		release <- struct{}{}
		<-entered
	}
	for range bound {
		release <- struct{}{}
	}
	for _, id := range ids {
		r := wait(t, clients[0], id)
		require.Equal(t, worker.StatusSuccess, r.Status, "run error: %v", r.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, bound, top, "the fleet reached its bound and never passed it")
	require.Empty(t, overHeld)
}

// TestFleetLimitSlotOfAKilledProcessIsFreed: a worker process holding the
// fleet's only slot for a run stuck in a node is killed with SIGKILL; the
// server ends its session and frees the slot, which another Client takes
// for its own run, and then for the dead process's run it re-queues.
func TestFleetLimitSlotOfAKilledProcessIsFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	holder := startWorker(t, e.schema, true, "STATEGRAPH_WORKER_FLEET=1")
	enq, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithPollInterval(100*time.Millisecond))
	require.NoError(t, err)
	stuck, err := enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "stuck", Input: DocInput{Topic: "stuck"}})
	require.NoError(t, err)
	for line := range holder.lines {
		if line == "blocked stuck" {
			break // the process holds the slot for it
		}
	}

	c := e.client(registry(e.pipeline(nil), "pipeline"), worker.WithFleetLimit(1), worker.WithHeartbeat(50*time.Millisecond, 2*time.Second))
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "freed", Input: DocInput{Topic: "freed"}})
	require.NoError(t, err)

	require.NoError(t, holder.cmd.Process.Signal(syscall.SIGKILL))
	for _, id := range []string{id, stuck} {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, "run error: %v", r.Err())
	}
}
