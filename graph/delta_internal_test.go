package graph

import (
	"bytes"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stretchr/testify/require"
)

// A snapshot is due when the chain a read follows costs more in rows than
// the value in bytes: never for large deltas (chat messages), soon for
// tiny ones, and never before minSnapshotBlobs deltas. The track a run
// restores from a read value counts what that value holds.
func TestSnapshotIsDueWhenTheChainsRowsOutweighItsBytes(t *testing.T) {
	t.Parallel()
	value := func(snapshot int, deltas ...int) checkpoint.Value {
		v := checkpoint.Value{Snapshot: bytes.Repeat([]byte("x"), snapshot)}
		for _, n := range deltas {
			v.Deltas = append(v.Deltas, bytes.Repeat([]byte("d"), n))
		}
		return v
	}
	repeat := func(n, size int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = size
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		value checkpoint.Value
		added int
		due   bool
	}{
		{"few tiny deltas", value(0, repeat(minSnapshotBlobs-2, 10)...), 10, false},
		{"many tiny deltas", value(1000, repeat(minSnapshotBlobs, 10)...), 10, true},
		{"a thousand chat messages", value(0, repeat(1000, 300)...), 300, false},
		{"chat messages after a large snapshot", value(1<<20, repeat(500, 300)...), 300, false},
		{"tiny deltas after a large snapshot", value(1<<20, repeat(8000, 10)...), 10, false},
		{"more tiny deltas after a large snapshot", value(1<<20, repeat(9000, 10)...), 10, true},
	} {
		tr := restoreTrack(tc.value, 7)
		require.Equal(t, 7, tr.lastLen, tc.name)
		require.Equal(t, len(tc.value.Snapshot), tr.snapBytes, tc.name)
		require.Equal(t, len(tc.value.Deltas), tr.oldBlobs, tc.name)
		tr.segs = append(tr.segs, seg{}) // the delta planned
		require.Equal(t, tc.due, tr.snapshotDue(tc.added), tc.name)
	}
}
