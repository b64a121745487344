package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// By default (eager steps) a round is one execute task whose steps are
// reported as they start and end; a Ctrl-C in the middle of the parallel round, after
// b_stock finished, is resumed without running b_stock again.
func TestEagerRunIsResumedWithoutRerunningFinishedSteps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	cmd := command(t, dir, "-thread", "t-eager", "-db", db)
	cmd.Env = env(slowToolsEnv + "=shipping_quote")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	out1 := readUntilInterrupted(t, cmd, stdout, "✓ b_stock:", "(test hook) shipping_quote blocks")
	require.Contains(t, out1, "(one task: each step as soon as the steps it depends on complete)")
	require.Contains(t, out1, "go run ./examples/planexecute -resume -thread t-eager -db "+db+"\n")
	require.NotContains(t, out1, "Recommendation")

	res := execute(t, command(t, dir, "-resume", "-thread", "t-eager", "-db", db), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	out2 := res.Stdout
	requireRecommendation(t, out2)
	require.Contains(t, out2, "✓ b_stock (saved before the interruption: not run again)")
	require.NotContains(t, out2, "▶ planner")
	calls := toolCalls(out2)
	require.Len(t, calls, 2, out2)
	for _, c := range calls {
		require.True(t, strings.Contains(c, "shipping_quote"), c)
	}
}

// readUntilInterrupted reads the started cmd's output until every marker
// was printed, presses Ctrl-C, checks that the program exits as
// interrupted, and returns all it printed.
func readUntilInterrupted(t *testing.T, cmd *exec.Cmd, stdout io.Reader, markers ...string) string {
	t.Helper()
	var out strings.Builder
	seen := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for len(seen) < len(markers) && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		for _, m := range markers {
			if strings.Contains(sc.Text(), m) {
				seen[m] = true
			}
		}
	}
	require.Len(t, seen, len(markers), "the run never printed %q:\n%s", markers, out.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(stdout)
	require.NoError(t, err)
	out.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, exitInterrupted, ee.ExitCode())
	return out.String()
}
