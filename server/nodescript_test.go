package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// jsPackages is an npm folder of the repository whose packages a test
// drives from node, pinned by its committed package-lock.json.
type jsPackages struct {
	node, dir, install string
}

// needJS returns the npm folder dir (relative to this package) with node,
// or skips the test, saying how to install what is missing: node itself,
// or any of pkgs under the folder's node_modules.
func needJS(t *testing.T, dir string, pkgs ...string) jsPackages {
	t.Helper()
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	install := "npm ci --prefix " + filepath.ToSlash(filepath.Join("server", dir)) + " --no-audit --no-fund"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: install Node 20+ and run `%s` to run this test", install)
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(abs, "node_modules", pkg)); err != nil {
			t.Skipf("%s is not installed: run `%s` to run this test", pkg, install)
		}
	}
	return jsPackages{node: node, dir: abs, install: install}
}

// run runs node script with args in the folder and env added to the
// environment, logs what it printed, and requires it to exit 0 having
// printed "all ok"; who names the other side in the failure.
func (js jsPackages) run(t *testing.T, who, script string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, js.node, append([]string{script}, args...)...)
	cmd.Dir = js.dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node %s:\n%s", script, out)
	require.NoError(t, err, "%s failed", who)
	require.Contains(t, string(out), "all ok")
}
