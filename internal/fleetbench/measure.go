package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/worker"
)

// marker tags fleetbench's own statements, so that the per-run figures
// leave them out.
const marker = "/* fleetbench-harness */ "

// result is one measurement.
type result struct {
	procs, runs      int
	workers, pool    int           // a process's
	span             time.Duration // first run's start to last run's end
	statements       float64       // per run; -1 without pg_stat_statements
	execMs           float64       // server execution time per run
	xacts            float64       // transactions per run (pg_stat_database)
	cpuMs            float64       // PostgreSQL CPU per run; -1 when unknown
	poolWaits        int64
	acquireWait      time.Duration
	p50, p90, p99    time.Duration // step overhead
	maxBusy, maxConn int           // server connections busy / open at once
	top              []stmt
	note             string
}

// stmt is a statement's share of a run.
type stmt struct {
	query       string
	calls, exec float64 // per run
}

const header = "| processes | workers / pool a process | runs | runs/s | statements / run | server exec ms / run | xacts / run | PostgreSQL CPU ms / run | pool waits | step overhead p50 / p90 / p99 | busy / open connections (max) |\n|---|---|---|---|---|---|---|---|---|---|---|"

func (r result) row() string {
	st, ex := "n/a", "n/a"
	if r.statements >= 0 {
		st, ex = fmt.Sprintf("%.1f", r.statements), fmt.Sprintf("%.2f", r.execMs)
	}
	cpu := "n/a"
	if r.cpuMs >= 0 {
		cpu = fmt.Sprintf("%.2f", r.cpuMs)
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	return fmt.Sprintf("| %d | %d / %d | %d | %.0f | %s | %s | %.1f | %s | %d | %s / %s / %s ms | %d / %d |",
		r.procs, r.workers, r.pool, r.runs, float64(r.runs)/r.span.Seconds(), st, ex, r.xacts, cpu, r.poolWaits, ms(r.p50), ms(r.p90), ms(r.p99), r.maxBusy, r.maxConn)
}

func (r result) statementsTable() string {
	s := "\n| calls / run | exec ms / run | statement |\n|---|---|---|\n"
	for _, t := range r.top {
		q := t.query
		if len(q) > 110 {
			q = q[:110] + "…"
		}
		s += fmt.Sprintf("| %.2f | %.3f | `%s` |\n", t.calls, t.exec, oneLine(q))
	}
	return s + "\n"
}

func oneLine(s string) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == '\n' || r == '\t' || r == ' ' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		if r == '|' || r == '`' {
			r = '¦'
		}
		out = append(out, r)
		space = false
	}
	return string(out)
}

// measure drains cfg.runs runs through n worker processes in a fresh
// schema.
func measure(ctx context.Context, cfg config, n int) (result, error) {
	r := result{procs: n, runs: cfg.runs, statements: -1, cpuMs: -1}
	pool, err := pgxpool.New(ctx, cfg.dsn)
	if err != nil {
		return r, err
	}
	defer pool.Close()
	var b [4]byte
	rand.Read(b[:]) //nolint:errcheck // never fails
	schema := "fleet_" + hex.EncodeToString(b[:])
	if !cfg.keep {
		defer pool.Exec(context.WithoutCancel(ctx), marker+`DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`) //nolint:errcheck // best effort
	}
	client, err := worker.New(pool, nil, worker.WithSchema(schema))
	if err != nil {
		return r, err
	}
	if err := client.Migrate(ctx); err != nil {
		return r, err
	}
	if cfg.fleet > 0 {
		cfg.workers = max(1, cfg.fleet/n)
	}
	if cfg.pool == 0 {
		cfg.pool = int(worker.PoolSize(cfg.workers))
		if cfg.limit > 0 {
			cfg.pool = int(worker.PoolSize(min(cfg.workers, cfg.limit)))
		}
	}
	r.workers, r.pool = cfg.workers, cfg.pool

	// The workers, idle until the runs are enqueued.
	procs := make([]*workerProc, n)
	for i := range procs {
		p, err := startWorker(cfg, schema)
		if err != nil {
			return r, err
		}
		procs[i] = p
		defer p.kill()
	}

	stats, hasStatements := newServerStats(ctx, pool)
	if err := stats.begin(ctx); err != nil {
		return r, err
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for i := range cfg.runs {
			thread := fmt.Sprintf("fleet-%d", i)
			if _, err := client.EnqueueTx(ctx, tx, worker.Request{Graph: graphName, Thread: thread, Input: input{Topic: thread}}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return r, err
	}
	runs := pgx.Identifier{schema, "stategraph_runs"}.Sanitize()
	jobs := pgx.Identifier{schema, "river_job"}.Sanitize()
	deadline := time.Now().Add(cfg.timeout)
	for {
		var active, busy, open int
		err := pool.QueryRow(ctx, marker+`SELECT (SELECT count(*) FROM `+runs+` WHERE status IN ('pending', 'running')),
	(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND backend_type = 'client backend'),
	(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend')`).Scan(&active, &busy, &open)
		if err != nil {
			return r, err
		}
		r.maxBusy, r.maxConn = max(r.maxBusy, busy-1), max(r.maxConn, open) // less this query's own
		if active == 0 {
			break
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("%d runs still active after %s", active, cfg.timeout)
		}
		time.Sleep(20 * time.Millisecond) // a benchmark's poll, not a test's synchronisation
	}
	if err := stats.end(ctx, &r); err != nil {
		return r, err
	}
	if !hasStatements {
		r.note = "pg_stat_statements is not loaded (shared_preload_libraries): statements and server time per run are n/a; xacts / run comes from pg_stat_database."
	}
	var failed int
	var span float64
	if err := pool.QueryRow(ctx, marker+`SELECT count(*) FILTER (WHERE r.status <> 'success'), extract(epoch FROM max(r.updated_at) - min(j.attempted_at))
FROM `+runs+` r JOIN `+jobs+` j ON j.id = r.job_id`).Scan(&failed, &span); err != nil {
		return r, err
	}
	if failed > 0 {
		return r, fmt.Errorf("%d of %d runs did not succeed", failed, cfg.runs)
	}
	r.span = time.Duration(span * float64(time.Second))

	// Stop the workers and gather their figures.
	var samples []int64
	for _, p := range procs {
		rep, err := p.stop()
		if err != nil {
			return r, err
		}
		samples = append(samples, rep.Samples...)
		r.poolWaits += rep.EmptyAcquires
		r.acquireWait += time.Duration(rep.AcquireWaitNs)
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pct := func(p float64) time.Duration {
		if len(samples) == 0 {
			return 0
		}
		return time.Duration(samples[min(len(samples)-1, int(p*float64(len(samples))))])
	}
	r.p50, r.p90, r.p99 = pct(0.50), pct(0.90), pct(0.99)
	return r, nil
}

// workerProc is a running worker process.
type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	wait  sync.Once
	err   error
}

func startWorker(cfg config, schema string) (*workerProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-worker", "-dsn", cfg.dsn, "-schema", schema,
		"-workers", strconv.Itoa(cfg.workers), "-pool", strconv.Itoa(cfg.pool), "-limit", strconv.Itoa(cfg.limit),
		"-steps", strconv.Itoa(cfg.steps), "-node", cfg.step.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &workerProc{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	line, err := p.out.ReadString('\n')
	if err != nil || line != "ready\n" {
		p.kill()
		return nil, fmt.Errorf("worker process did not start: %q %v", line, err)
	}
	return p, nil
}

// stop closes the worker's standard input and reads its report.
func (p *workerProc) stop() (workerReport, error) {
	var rep workerReport
	p.stdin.Close()
	dec := json.NewDecoder(p.out)
	if err := dec.Decode(&rep); err != nil {
		return rep, fmt.Errorf("worker %d report: %w", p.cmd.Process.Pid, err)
	}
	p.wait.Do(func() { p.err = p.cmd.Wait() })
	return rep, p.err
}

func (p *workerProc) kill() {
	p.wait.Do(func() {
		p.stdin.Close()
		p.cmd.Process.Kill() //nolint:errcheck // it may have exited
		p.err = p.cmd.Wait()
	})
}

var errNoProc = errors.New("the server's processes are not readable here")
