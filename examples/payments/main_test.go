package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/examples/internal/clitest"
)

// bin is the example, built once by TestMain, run by the tests as a user
// runs it.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "payments", &bin) }

func TestBadCommandLinesExitTwoWithTheUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-x"}, {"extra"}} {
		r := clitest.Run(t, bin, t.TempDir(), "", args...)
		require.Equal(t, 2, r.Code, args)
		require.Empty(t, r.Stdout, args)
		require.True(t, strings.HasPrefix(r.Stderr, "payments: "), r.Stderr)
		require.Contains(t, r.Stderr, usage, args)
	}
	r := clitest.Run(t, bin, t.TempDir(), "", "-h")
	require.Equal(t, 0, r.Code)
	require.True(t, strings.HasPrefix(r.Stdout, usage))
}

func TestAKilledOrderIsChargedAndMailedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		receipt string
	}{
		{"reconciled", nil, "receipt: receipt sent (found in the outbox by its key: to: ana@example.com)"},
		{"asked", []string{"-no-reconcile"}, "receipt: receipt sent (confirmed by a person)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"-db", filepath.Join(dir, "pay.db")}, tc.args...)
			r := clitest.Run(t, bin, dir, "", args...)
			require.Equal(t, 0, r.Code, r.Stderr)
			require.Contains(t, r.Stdout, "account balance: 100\n")
			require.Contains(t, r.Stdout, "child process killed by SIGKILL after the e-mail went out\n")
			require.Contains(t, r.Stdout, "resumed: balance 75 (charged 25 once), "+tc.receipt+"\n")
			require.Contains(t, r.Stdout, "e-mails sent for the order: 1\n")

			// A second order on the same file charges again, once.
			r = clitest.Run(t, bin, dir, "", args...)
			require.Equal(t, 0, r.Code, r.Stderr)
			require.Contains(t, r.Stdout, "resumed: balance 50 (charged 25 once)")
		})
	}
}
