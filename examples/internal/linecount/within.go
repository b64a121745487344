package linecount

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// RequireWithin fails t unless the Go program ours has at most factor
// times the lines of the Python program theirs, both counted by File.
func RequireWithin(t testing.TB, factor int, ours, theirs string) {
	t.Helper()
	o, err := File(ours)
	require.NoError(t, err)
	p, err := File(theirs)
	require.NoError(t, err)
	t.Logf("%s %d lines, LangGraph Python %d", ours, o, p)
	require.LessOrEqual(t, o, factor*p, "%s has more than %d× the lines of %s", ours, factor, theirs)
}
