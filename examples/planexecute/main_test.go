package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/examples/internal/clitest"
	"github.com/stategraph/stategraph/examples/internal/deliverytest"
	"github.com/stretchr/testify/require"
)

// bin is the example, built once by TestMain, run by the tests as a user
// would run it.
var bin string

func TestMain(m *testing.M) { clitest.MainRace(m, "planexecute", &bin) }

// result is what a run of the example printed, and its exit status.
type result = clitest.Result

// dropEnv are the prefixes of the variables the example reads, kept out of
// its environment in the tests.
var dropEnv = []string{"OPENAI_", "OLLAMA_", "PLANEXECUTE_", "OTEL_"}

// env is the test's environment without the variables the example reads,
// plus extra.
func env(extra ...string) []string { return append(clitest.Env(dropEnv), extra...) }

// command prepares the example in dir; it is killed if the test runs too long.
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	return clitest.Command(t, bin, dir, dropEnv, args...)
}

// execute runs the prepared command with stdin and returns its output and exit status.
func execute(t *testing.T, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	return clitest.Execute(t, cmd, stdin)
}

// recommendation are the phrases the answer must reach.
var recommendation = deliverytest.Recommendation

func requireRecommendation(t *testing.T, out string) {
	t.Helper()
	deliverytest.RequireRecommendation(t, out)
}

// toolCalls lists the tool-call lines of a run's output ("→ tool input").
func toolCalls(out string) []string {
	return regexp.MustCompile(`→ (\w+ \{.*\})`).FindAllString(out, -1)
}

func TestDefaultRunReachesTheRecommendation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := execute(t, command(t, dir), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	out := res.Stdout
	requireRecommendation(t, out)
	// The progress: nodes starting and ending, the plan as a numbered
	// list, each step of a round as it starts and ends (eager steps, the
	// default), the replan and why.
	for _, want := range []string{
		"thread o1001-",
		"▶ planner", "✓ planner", "a plan of 4 steps",
		"1.   order", "3.   deliver_a",
		"▶ execute order, stock_a, deliver_a, answer (one task: each step as soon as the steps it depends on complete)",
		"  ▶ stock_a", "✓ stock_a: BLOCKED — warehouse A has no stock",
		"✓ execute (", "the round ended, 2 steps ran",
		"REPLAN (adaptive:partial:template)", "why: step \"stock_a\" succeeded and showed the route is blocked",
		"kept order, stock_a · removed deliver_a, answer · added b_stock, b_express, b_standard, recommend",
		"revised plan:", "1. ✓ order",
		"▶ execute b_stock, b_express, b_standard, recommend (one task",
		"✓ b_standard: candidate: arrives Friday 16:00, extra 10", "the round ended, 4 steps ran",
		"✓ respond", "2 rounds, 1 replan(s), 5 tool calls",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "(in parallel, one task each)")
	require.Len(t, toolCalls(out), 5)
	require.NotContains(t, out, "change_order")
	require.FileExists(t, filepath.Join(dir, defaultDB), "the checkpoints are in the working directory")
}

// -rounds runs the plan round by round: each step is its own execute task,
// the steps of a round in parallel, each round waiting for its slowest step.
func TestRoundsFlagRunsRoundByRound(t *testing.T) {
	t.Parallel()
	res := execute(t, command(t, t.TempDir(), "-rounds"), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	out := res.Stdout
	requireRecommendation(t, out)
	for _, want := range []string{
		"✓ execute stock_a", "BLOCKED — warehouse A has no stock",
		"REPLAN (adaptive:partial:template)",
		"▶ execute b_stock, b_express, b_standard (in parallel, one task each)",
		"✓ respond", "4 rounds, 1 replan(s), 5 tool calls",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "(one task: each step as soon as")
	require.Len(t, toolCalls(out), 5)
}

func TestCtrlCLeavesTheThreadResumable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")

	// Round by round (-rounds; eager_test.go covers the default): the
	// shipping quotes block until the run is cancelled, so the interrupt
	// lands in the middle of the parallel round, after b_stock.
	cmd := command(t, dir, "-rounds", "-thread", "t-ctrl-c", "-db", db)
	cmd.Env = env(slowToolsEnv + "=shipping_quote")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var first strings.Builder
	sc := bufio.NewScanner(stdout)
	stockB, blocked := false, false
	for !(stockB && blocked) && sc.Scan() {
		line := sc.Text()
		first.WriteString(line + "\n")
		stockB = stockB || strings.Contains(line, "✓ execute b_stock")
		blocked = blocked || strings.Contains(line, "(test hook) shipping_quote blocks")
	}
	require.True(t, stockB && blocked, "the run never reached the parallel round:\n%s", first.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(stdout)
	require.NoError(t, err)
	first.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	out1 := first.String()
	require.Contains(t, out1, "Interrupted. The thread is saved and resumable")
	require.Contains(t, out1, "go run ./examples/planexecute -resume -thread t-ctrl-c -db "+db+" -rounds\n")
	require.NotContains(t, out1, "Recommendation")

	res := execute(t, command(t, dir, "-resume", "-rounds", "-thread", "t-ctrl-c", "-db", db), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	out2 := res.Stdout
	requireRecommendation(t, out2)
	require.Contains(t, out2, "Resuming after graph step 5: next: execute ×3 (1 already done)")
	require.Contains(t, out2, "✓ execute b_stock (saved before the interruption: not run again)")
	// Nothing that finished runs again: no planning, no order lookup, no
	// stock check; only the two quotes that were cut off.
	require.NotContains(t, out2, "▶ planner")
	calls := toolCalls(out2)
	require.Len(t, calls, 2, out2)
	for _, c := range calls {
		require.Contains(t, c, "shipping_quote")
	}
	require.Contains(t, out2, "5 tool calls (2 by this process)")

	// Resuming a finished thread prints its answer and runs nothing.
	res = execute(t, command(t, dir, "-resume", "-thread", "t-ctrl-c", "-db", db), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "The thread has already finished")
	requireRecommendation(t, res.Stdout)
	require.Empty(t, toolCalls(res.Stdout))
}

// interruptAt starts cmd, reads its output until a line contains marker,
// presses Ctrl-C, and returns all it printed and its exit code.
func interruptAt(t *testing.T, cmd *exec.Cmd, marker string) result {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	found := false
	for !found && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		found = strings.Contains(sc.Text(), marker)
	}
	require.True(t, found, "the run never printed %q:\n%s", marker, out.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(stdout)
	require.NoError(t, err)
	out.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee)
	}
	return result{Stdout: out.String(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}
}

// -delay is how a person gets the time to press Ctrl-C: with an hour per
// tool call, the first call is certainly still running when it comes.
func TestDelayLeavesTimeForCtrlC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := interruptAt(t, command(t, dir, "-delay", "1h", "-thread", "demo"), "→ order_lookup")
	require.Equal(t, exitInterrupted, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "each tool call takes 1h0m0s (-delay)")
	require.Contains(t, res.Stdout, "Interrupted. The thread is saved and resumable")
	require.Contains(t, res.Stdout, "To finish it: go run ./examples/planexecute -resume -thread demo\n")
	require.Contains(t, res.Stdout, "  ▶ order")
	require.NotContains(t, res.Stdout, "✓ order:", "the call was cut off")

	// The documented second command: the plan is not made again; the cut-off
	// lookup and everything after it run, without the delay.
	res = execute(t, command(t, dir, "-resume", "-thread", "demo"), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	requireRecommendation(t, res.Stdout)
	require.Contains(t, res.Stdout, "Resuming after graph step 1: next: execute")
	require.NotContains(t, res.Stdout, "▶ planner")
	require.NotContains(t, res.Stdout, "-delay")
	require.Contains(t, res.Stdout, "5 tool calls (5 by this process)")
}

func TestDelaySlowsEachToolCall(t *testing.T) {
	t.Parallel()
	res := execute(t, command(t, t.TempDir(), "-delay", "100ms"), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	requireRecommendation(t, res.Stdout)
	// Three tool calls in a chain (order, stock_a, then three quotes and
	// checks in parallel): at least three delays, whatever the machine.
	m := regexp.MustCompile(`Done in ([0-9.]+)s`).FindStringSubmatch(res.Stdout)
	require.Len(t, m, 2, res.Stdout)
	took, err := time.ParseDuration(m[1] + "s")
	require.NoError(t, err)
	require.GreaterOrEqual(t, took, 300*time.Millisecond)
}

func TestApproveOnStandardInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		stdin string
		code  int
		want  []string
	}{
		{"yes", "y\n", exitOK, append([]string{"Approval needed", "Write the answer? [y/n]", "▶ respond"}, recommendation...)},
		{"yes after a bad reply", "maybe\nyes\n", exitOK, append([]string{"Please answer y or n."}, recommendation...)},
		{"no", "n\n", exitDeclined, []string{"Declined: no answer was written", "-resume -thread t-approve", "-approve"}},
		{"no input", "", exitDeclined, []string{"No approval (standard input ended)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			res := execute(t, command(t, dir, "-approve", "-thread", "t-approve"), tc.stdin)
			require.Equal(t, tc.code, res.Code, res.Stderr)
			for _, w := range tc.want {
				require.Contains(t, res.Stdout, w)
			}
			// The human sees the findings before deciding: the five plan
			// steps that called a tool, each listed.
			require.Contains(t, res.Stdout, "The agent ran 5 tool steps of its plan (5 tool calls, all read-only) and found:\n"+
				"  - order: ")
			require.Equal(t, 5, strings.Count(res.Stdout, "\n  - "))
			require.Contains(t, res.Stdout, "b_standard: candidate: arrives Friday 16:00, extra 10")
			if tc.code != exitOK {
				require.NotContains(t, res.Stdout, "Recommendation")
				require.NotContains(t, res.Stdout, "▶ respond")
			}
		})
	}
}

func TestDeclinedThreadAsksAgainOnResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := execute(t, command(t, dir, "-approve", "-thread", "t-later"), "n\n")
	require.Equal(t, exitDeclined, res.Code, res.Stderr)

	// Without -approve: the thread was started with it, so it still asks.
	res = execute(t, command(t, dir, "-resume", "-thread", "t-later"), "y\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "Approval needed")
	requireRecommendation(t, res.Stdout)
	require.Empty(t, toolCalls(res.Stdout), "approving does not run any step again")
}

func TestMermaidFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "run.md")
	res := execute(t, command(t, dir, "-thread", "t-mermaid", "-mermaid", file), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "The graph and this run's path are in "+file)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	md := string(b)
	require.Equal(t, 2, strings.Count(md, "```mermaid\n"))
	graphBlock, pathBlock, ok := strings.Cut(md, "## The path")
	require.True(t, ok)
	require.Contains(t, graphBlock, "__start__ --> planner;")
	require.Contains(t, graphBlock, "replan -.-> respond;")
	require.Contains(t, pathBlock, "thread t-mermaid")
	require.Contains(t, pathBlock, "s3_replan --> s4_execute;")
	require.Contains(t, pathBlock, "s5_replan --> s6_respond;")
	require.Contains(t, pathBlock, "s6_respond --> __end__;")
}

func TestBadInvocations(t *testing.T) {
	t.Parallel()
	closed := closedAddr(t)
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"openai without a key", []string{"-model", "openai"}, nil, "-model openai needs OPENAI_API_KEY"},
		{"ollama not running", []string{"-model", "ollama"}, []string{"OLLAMA_HOST=" + closed}, "cannot reach the Ollama server at http://" + closed},
		{"unknown model", []string{"-model", "gpt"}, nil, `-model "gpt": want openai or ollama`},
		{"resume without a thread", []string{"-resume"}, nil, "-resume needs -thread ID"},
		{"unknown flag", []string{"-frobnicate"}, nil, "flag provided but not defined"},
		{"negative delay", []string{"-delay", "-1s"}, nil, "-delay -1s: want a duration of zero or more"},
		{"mermaid file in a missing directory", []string{"-mermaid", "/nonexistent/dir/x.md"}, nil,
			"-mermaid /nonexistent/dir/x.md: cannot write the file: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := command(t, t.TempDir(), tc.args...)
			cmd.Env = env(tc.env...)
			res := execute(t, cmd, "")
			require.Equal(t, exitUsage, res.Code)
			require.Contains(t, res.Stderr, tc.want)
			require.Empty(t, toolCalls(res.Stdout), "nothing ran")
		})
	}

	t.Run("resume an unknown thread", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		md := filepath.Join(dir, "run.md")
		res := execute(t, command(t, dir, "-resume", "-thread", "nope", "-mermaid", md), "")
		require.Equal(t, exitUsage, res.Code)
		require.Contains(t, res.Stdout, `There is no thread "nope"`)
		require.Empty(t, toolCalls(res.Stdout))
		require.NoFileExists(t, md, "checking that -mermaid can be written leaves no file behind")
	})
}

// closedAddr returns a local address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
