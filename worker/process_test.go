package worker_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestWorkerProcess is the worker process of the multi-process tests; it
// does nothing in a normal test run. It works runs of the pipeline on the
// schema it is given until its stdin closes, with the package's defaults
// (River's logger silenced). A victim parks every run in node c, after
// the checkpoints of the input and of the steps before c are saved, and says so on
// stdout; it is killed there.
func TestWorkerProcess(t *testing.T) {
	schema := os.Getenv("STATEGRAPH_WORKER_SCHEMA")
	if schema == "" {
		t.Skip("worker process of the multi-process tests")
	}
	victim := os.Getenv("STATEGRAPH_WORKER_VICTIM") == "1"
	if os.Getenv("STATEGRAPH_WORKER_MODE") == "bench" {
		e := openEnvPool(t, schema, func(cfg *pgxpool.Config) { cfg.MaxConns = worker.PoolSize(worker.DefaultWorkers) })
		benchWorker(t, e)
		return
	}
	e := openEnv(t, schema, false)
	var h hook
	if victim {
		var mu sync.Mutex
		h = func(ctx context.Context, topic, node string) error {
			if node == "c" {
				mu.Lock()
				fmt.Printf("blocked %s\n", topic)
				mu.Unlock()
				select {} // a stuck process: only SIGKILL ends it
			}
			return nil
		}
	}
	workers := 4
	if victim {
		workers = victimSlots
	}
	opts := []worker.Option{worker.WithSchema(schema), worker.WithSaver(e.saver), worker.WithWorkers(workers),
		worker.WithRiverConfig(func(c *river.Config) { c.Logger = slog.New(slog.DiscardHandler) })}
	if n, err := strconv.Atoi(os.Getenv("STATEGRAPH_WORKER_FLEET")); err == nil {
		opts = append(opts, worker.WithFleetLimit(n))
	}
	c, err := worker.New(e.pool, registry(e.pipeline(h), "pipeline"), opts...)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the parent closes it
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Stop(ctx))
}

// victimSlots is how many runs the victim of the kill test holds when it
// is killed.
const victimSlots = 10

// proc is a worker process started by a test.
type proc struct {
	cmd   *exec.Cmd
	lines chan string // its stdout, closed at EOF
}

// startWorker starts a worker process on schema and waits until it is
// ready. It is stopped (or killed) when the test ends.
func startWorker(t testing.TB, schema string, victim bool, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STATEGRAPH_WORKER_SCHEMA="+schema)
	if victim {
		cmd.Env = append(cmd.Env, "STATEGRAPH_WORKER_VICTIM=1")
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- strings.TrimSpace(sc.Text())
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill() //nolint:errcheck // it would not stop
			<-done
		}
	})
	for line := range p.lines {
		if line == "ready" {
			return p
		}
	}
	t.Fatal("a worker process ended before it was ready")
	return nil
}

// TestKilledWorkerProcessRunsAreFinishedByOthers is the "done":
// four worker processes share one database with the package's defaults;
// 30 runs are enqueued on distinct threads; one process, holding ten runs
// stuck in a node, is killed with SIGKILL. Its heartbeat stops, and the
// others re-queue its runs once it has been silent for DefaultDeadAfter;
// they resume the threads from their last checkpoints: every run
// completes, each of the victim's within 15 s of the kill (the design's
// target is 10 s), each thread ends in exactly the state of an
// uninterrupted run (the input is not applied twice), and no finished
// node ran twice.
func TestKilledWorkerProcessRunsAreFinishedByOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	// The victim starts alone, so that it fills all its worker slots and
	// all its runs park in c before the kill: a run it had taken but not
	// yet parked would be killed in a or b, and be retried with nodes the
	// checks below do not expect.
	victim := startWorker(t, e.schema, true)

	enq, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithPollInterval(100*time.Millisecond))
	require.NoError(t, err)
	const n = 30
	ids := make([]string, n)
	inputs := make([]DocInput, n)
	for i := range n {
		inputs[i] = DocInput{Topic: fmt.Sprintf("mp-%02d", i), Add: i}
		ids[i], err = enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: inputs[i].Topic, Input: inputs[i]})
		require.NoError(t, err)
	}

	// Kill the victim once all its worker slots are stuck in runs: it
	// then holds no other run, and takes none.
	blocked := map[string]bool{}
	for len(blocked) < victimSlots {
		select {
		case line, ok := <-victim.lines:
			require.True(t, ok, "the victim ended before taking its runs")
			topic, ok := strings.CutPrefix(line, "blocked ")
			require.True(t, ok, line)
			blocked[topic] = true
		case <-time.After(time.Minute):
			t.Fatalf("the victim parked %d runs in a minute, want %d", len(blocked), victimSlots)
		}
	}
	for range 3 {
		startWorker(t, e.schema, false)
	}
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	for line := range victim.lines {
		require.Fail(t, "the victim said more after parking its runs", line)
	}
	victimPid := victim.cmd.Process.Pid
	t.Logf("killed the victim with %d runs in flight", len(blocked))

	var slowest time.Duration
	for i, id := range ids {
		r := wait(t, enq, id)
		if r.Status != worker.StatusSuccess {
			rows, _ := e.pool.Query(ctx, `SELECT id, state, attempt, errors::text, args::text FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()+` WHERE args->>'run_id' = $1`, id)
			for rows.Next() {
				var (
					jid          int64
					st, er, args string
					at           int
				)
				rows.Scan(&jid, &st, &at, &er, &args)
				t.Logf("job %d %s %d %s %s (run job %d)", jid, st, at, er, args, r.JobID)
			}
		}
		require.Equal(t, worker.StatusSuccess, r.Status, "run %s: %s", id, r.Error)
		if blocked[inputs[i].Topic] {
			took := r.UpdatedAt.Sub(killed)
			slowest = max(slowest, took)
			require.Less(t, took, 15*time.Second, "the killed worker's run on %s was finished %s after the kill", inputs[i].Topic, took)
		}
		require.Equal(t, reference(t, inputs[i], 1), result(t, r), "thread %s ends as an uninterrupted run would", inputs[i].Topic)
		want := 1
		if blocked[inputs[i].Topic] {
			want = 2 // the killed attempt and the one that finished it
		}
		require.Equal(t, want, r.Attempts, "thread %s", inputs[i].Topic)
		require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog(inputs[i].Topic), "no finished node ran twice on %s", inputs[i].Topic)
	}
	t.Logf("the killed worker's %d runs were all finished %s after the kill (dead-after %s, heartbeat %s)", len(blocked), slowest.Round(time.Millisecond), worker.DefaultDeadAfter, worker.DefaultHeartbeat)
	require.NotEmpty(t, blocked)
	for topic := range blocked {
		rows, err := e.pool.Query(ctx, `SELECT node, pid FROM `+e.log+` WHERE topic = $1 ORDER BY node`, topic)
		require.NoError(t, err)
		byNode := map[string]int{}
		for rows.Next() {
			var (
				node string
				pid  int
			)
			require.NoError(t, rows.Scan(&node, &pid))
			byNode[node] = pid
		}
		require.NoError(t, rows.Err())
		require.Equal(t, victimPid, byNode["a"], "a ran once, in the killed process")
		require.Equal(t, victimPid, byNode["b"])
		require.NotEqual(t, victimPid, byNode["c"], "c ran after the rescue, elsewhere")
	}
}

// TestWorkersRacingOnOneThreadTakeTurns: two worker processes take runs
// enqueued at once on one thread with the Enqueue strategy. Whichever
// process takes a run, only one run advances the thread at a time: each
// run sees exactly the runs enqueued before it, and no node ran twice.
func TestWorkersRacingOnOneThreadTakeTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	startWorker(t, e.schema, false)
	startWorker(t, e.schema, false)
	c, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithPollInterval(100*time.Millisecond))
	require.NoError(t, err)

	const n = 8
	ids := make([]string, n)
	require.NoError(t, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		for i := range n {
			var err error
			ids[i], err = c.EnqueueTx(ctx, tx, worker.Request{Graph: "pipeline", Thread: "race", Input: DocInput{Topic: "race", Add: 1 << i}, Strategy: worker.Enqueue})
			if err != nil {
				return err
			}
		}
		return nil
	}))
	total := 0
	for i, id := range ids {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
		total += 1<<i + 4
		d := result(t, r)
		require.Len(t, d.Trail, 4*(i+1), "run %d saw the %d runs before it", i, i)
		require.Equal(t, total, d.Total)
	}
	require.Equal(t, map[string]int{"a": n, "b": n, "c": n, "d": n}, e.nodeLog("race"))
}
