package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The inspector reads the database the plan-and-execute example writes,
// as a newcomer would after `go run ./examples/planexecute`.
func TestInspectsTheExampleDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	t.Parallel()
	dir := t.TempDir()
	example := filepath.Join(dir, "planexecute")
	build := exec.Command("go", "build", "-o", example, "../../examples/planexecute")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the example: %s", out)
	db := filepath.Join(dir, "planexecute.db")
	run := exec.Command(example, "-db", db, "-thread", "o1001-inspect")
	run.Dir = dir
	out, err = run.CombinedOutput()
	require.NoError(t, err, "run the example: %s", out)
	require.Contains(t, string(out), "warehouse B, standard shipping")

	threads := cli(t, nil, "-db", db, "threads")
	require.Equal(t, 0, threads.code, threads.stderr)
	require.Regexp(t, `(?m)^o1001-inspect\s+\d+\s+done\s`, threads.stdout)

	history := cli(t, nil, "-db", db, "history", "o1001-inspect")
	require.Equal(t, 0, history.code, history.stderr)
	for _, node := range []string{"planner", "execute", "replan", "respond"} {
		require.Contains(t, history.stdout, node)
	}

	st := decode[stateView](t, db, "state", "o1001-inspect")
	require.Empty(t, st.Next)
	require.Contains(t, string(st.Values["response"]), "warehouse B")

	mermaid := cli(t, nil, "-db", db, "mermaid", "o1001-inspect")
	require.Equal(t, 0, mermaid.code, mermaid.stderr)
	require.True(t, strings.HasPrefix(mermaid.stdout, "graph TD;\n"))
	require.Contains(t, mermaid.stdout, "--> __end__;")
}
