package graph_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
)

// The processes of these tests are this test binary run again as
// TestLeaseChild, told by the environment which database to use. A child
// says "ready", waits for "go" on stdin, runs thread "race"; its node a
// logs "a <pid>" to the log file, says "running" and waits for "finish" on
// stdin (or to be killed). A child refused the thread says "busy: <error>".

const leaseThread = "race"

// leaseEnv describes the database of a lease test to its children.
type leaseEnv struct {
	db       string // SQLite file, or "" for PostgreSQL
	pgSchema string
	log      string
	ttl      time.Duration
}

func (e leaseEnv) environ() []string {
	return append(os.Environ(), "STATEGRAPH_LEASE_DB="+e.db, "STATEGRAPH_LEASE_PG_SCHEMA="+e.pgSchema,
		"STATEGRAPH_LEASE_LOG="+e.log, "STATEGRAPH_LEASE_TTL="+e.ttl.String())
}

func (e leaseEnv) saver(t *testing.T) checkpoint.Saver {
	t.Helper()
	if e.db != "" {
		s, err := sqlite.Open(e.db)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(e.pgSchema))
	require.NoError(t, s.Migrate(context.Background()))
	return s
}

// leaseGraph is Start → a → b on saver; a waits for a line on lines.
func leaseGraph(t *testing.T, saver checkpoint.Saver, log string, ttl time.Duration, lines *bufio.Scanner) *graph.Compiled[counter] {
	a := func(ctx context.Context, s counter) (state.Update[counter], error) {
		if err := appendLine(log, fmt.Sprint("a ", os.Getpid())); err != nil {
			return state.Update[counter]{}, err
		}
		if lines != nil {
			fmt.Println("running")
			if !lines.Scan() || lines.Text() != "finish" {
				return state.Update[counter]{}, errors.New("child: no finish line")
			}
		}
		return state.Writes(totalField.Set(1)), nil
	}
	b := func(ctx context.Context, s counter) (state.Update[counter], error) {
		if err := appendLine(log, fmt.Sprint("b ", os.Getpid())); err != nil {
			return state.Update[counter]{}, err
		}
		return state.Writes(trailField.Set([]string{"b"})), nil
	}
	g := graph.New(schema).AddNode("a", a).AddNode("b", b).AddEdge(graph.Start, "a").AddEdge("a", "b")
	return mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithLease(ttl))
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	return errors.Join(err, f.Close())
}

// TestLeaseChild is a child process of the lease tests; it does nothing in
// a normal test run.
func TestLeaseChild(t *testing.T) {
	log := os.Getenv("STATEGRAPH_LEASE_LOG")
	if log == "" {
		t.Skip("child process of the lease tests")
	}
	ttl, err := time.ParseDuration(os.Getenv("STATEGRAPH_LEASE_TTL"))
	require.NoError(t, err)
	e := leaseEnv{db: os.Getenv("STATEGRAPH_LEASE_DB"), pgSchema: os.Getenv("STATEGRAPH_LEASE_PG_SCHEMA"), log: log, ttl: ttl}
	lines := bufio.NewScanner(os.Stdin)
	c := leaseGraph(t, e.saver(t), log, ttl, lines)
	fmt.Println("ready")
	require.True(t, lines.Scan())
	require.Equal(t, "go", lines.Text())
	_, err = c.Invoke(context.Background(), state.Writes(lastField.Set("go")), graph.WithThread(leaseThread))
	if errors.Is(err, checkpoint.ErrBusy) {
		fmt.Println("busy:", err)
		return
	}
	require.NoError(t, err)
	fmt.Println("done")
}

// child is a running child process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // its stdout, line by line; closed at its end
}

func startChild(t *testing.T, e leaseEnv) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseChild$", "-test.v")
	cmd.Env = e.environ()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return c
}

// await returns the child's first line that starts with one of prefixes.
func (c *child) await(t *testing.T, prefixes ...string) string {
	t.Helper()
	for line := range c.lines {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				return line
			}
		}
	}
	t.Fatalf("child %d ended without a line starting with %q", c.cmd.Process.Pid, prefixes)
	return ""
}

func (c *child) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(c.stdin, line+"\n")
	require.NoError(t, err)
}

// leaseBackends returns the environments of the lease tests: SQLite and,
// when STATEGRAPH_POSTGRES_DSN is set, PostgreSQL.
func leaseBackends(t *testing.T, ttl time.Duration) map[string]leaseEnv {
	dir := t.TempDir()
	out := map[string]leaseEnv{"sqlite": {db: filepath.Join(dir, "lease.db"), log: filepath.Join(dir, "sqlite.log"), ttl: ttl}}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		out["postgres"] = leaseEnv{pgSchema: pgtest.Schema(t), log: filepath.Join(dir, "postgres.log"), ttl: ttl}
	}
	return out
}

func readLog(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestOneOfEightProcessesRunsAThreadTheOthersAreBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	for name, e := range leaseBackends(t, time.Minute) {
		t.Run(name, func(t *testing.T) {
			e.saver(t) // migrated before the children start
			const n = 8
			children := make([]*child, n)
			for i := range children {
				children[i] = startChild(t, e)
			}
			for _, c := range children {
				c.await(t, "ready")
			}
			for _, c := range children {
				c.send(t, "go")
			}
			var winner *child
			var busy []string
			for _, c := range children {
				line := c.await(t, "running", "busy:")
				if line == "running" {
					require.Nil(t, winner, "two processes run the thread")
					winner = c
					continue
				}
				busy = append(busy, line)
			}
			require.NotNil(t, winner, "no process ran the thread")
			require.Len(t, busy, n-1)
			host, _ := os.Hostname()
			for _, line := range busy {
				require.Contains(t, line, `graph: thread "race" is busy: held by `+host+":"+strconv.Itoa(winner.cmd.Process.Pid)+":", "the busy error names the running process")
			}
			winner.send(t, "finish")
			winner.await(t, "done")
			for _, c := range children {
				require.NoError(t, c.cmd.Wait())
			}

			wp := strconv.Itoa(winner.cmd.Process.Pid)
			require.Equal(t, []string{"a " + wp, "b " + wp}, readLog(t, e.log), "only the winner ran nodes, each once")
			saver := e.saver(t)
			all, inputs := countHistory(t, saver, leaseThread)
			require.Equal(t, 1, inputs, "one input checkpoint: no loser stored one")
			// The same run in this process, on another thread, stores as many.
			_, err := leaseGraph(t, saver, filepath.Join(t.TempDir(), "ref.log"), e.ttl, nil).
				Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("reference"))
			require.NoError(t, err)
			want, _ := countHistory(t, saver, "reference")
			require.Equal(t, want, all, "one run's checkpoints, and no more")
		})
	}
}

func TestKilledHoldersThreadIsTakenWithinTheLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Parallel()
	const ttl = 2 * time.Second
	for name, e := range leaseBackends(t, ttl) {
		t.Run(name, func(t *testing.T) {
			saver := e.saver(t)
			holder := startChild(t, e)
			holder.await(t, "ready")
			holder.send(t, "go")
			holder.await(t, "running")
			require.NoError(t, holder.cmd.Process.Signal(syscall.SIGKILL))
			require.Error(t, holder.cmd.Wait())
			killed := time.Now()

			c := leaseGraph(t, saver, e.log, ttl, nil)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread(leaseThread))
			if name == "sqlite" && runtime.GOOS == "linux" {
				// A SQLite lease names its process: one killed on this
				// machine is not live, and the thread is taken at once.
				require.NoError(t, err, "the killed holder's SQLite lease is taken at once")
			} else {
				require.ErrorIs(t, err, checkpoint.ErrBusy, "the dead holder's lease holds until it expires")
				require.ErrorContains(t, err, ":"+strconv.Itoa(holder.cmd.Process.Pid)+":")
				out, err = c.Invoke(t.Context(), zero, graph.WithThread(leaseThread), graph.WaitForThread())
				require.NoError(t, err)
			}
			require.Less(t, time.Since(killed), ttl+5*time.Second, "taken within the lease time")
			require.Equal(t, 1, out.Total)
			require.Equal(t, []string{"b"}, out.Trail)
			me, dead := strconv.Itoa(os.Getpid()), strconv.Itoa(holder.cmd.Process.Pid)
			require.Equal(t, []string{"a " + dead, "a " + me, "b " + me}, readLog(t, e.log), "a, which never finished, ran again; b once")
		})
	}
}
