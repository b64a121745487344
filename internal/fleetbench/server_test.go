package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProcStatReadsThisProcess: the /proc reader finds this process's
// parent and a CPU time, which the server's CPU figure is built from.
func TestProcStatReadsThisProcess(t *testing.T) {
	t.Parallel()
	st, err := procStat(os.Getpid())
	require.NoError(t, err)
	require.Equal(t, os.Getppid(), st.ppid)
	ticks, err := serverTicks(os.Getppid())
	require.NoError(t, err)
	require.GreaterOrEqual(t, ticks, st.utime+st.stime, "the parent's children include this process")
}

// TestOneLineKeepsATableCell: a statement's text fits one Markdown table
// cell.
func TestOneLineKeepsATableCell(t *testing.T) {
	t.Parallel()
	require.Equal(t, "SELECT a ¦¦ b FROM t", oneLine("SELECT a ||\n\t b  FROM t"))
}
