package graph

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The delta chain of an append field stays logarithmic: following bases
// from the newest version back to the snapshot visits few blobs, and
// every element is covered exactly once.
func TestDeltaLevelsKeepChainsShort(t *testing.T) {
	t.Parallel()
	var tr appendTrack
	type blob struct {
		base  int // index of the version it extends (-1: the snapshot)
		start int
	}
	var blobs []blob
	for v := range 5000 {
		tr.lastLen = v // one element appended per version
		base, start := tr.nextDelta(versionName(v - 1))
		blobs = append(blobs, blob{base: versionIndex(base), start: start})
	}
	for _, head := range []int{0, 7, 8, 63, 64, 511, 4999} {
		hops, covered := 0, 0
		end := head + 1
		for v := head; v >= 0; v = blobs[v].base {
			covered += end - blobs[v].start
			end = blobs[v].start
			hops++
		}
		require.Equal(t, head+1, covered, "head %d", head)
		require.LessOrEqual(t, hops, 4*(mergeFanout-1)+1, "head %d", head)
	}
}

func versionName(i int) string {
	if i < 0 {
		return ""
	}
	return string(rune(0x1000 + i))
}

func versionIndex(name string) int {
	if name == "" {
		return -1
	}
	return int([]rune(name)[0]) - 0x1000
}
