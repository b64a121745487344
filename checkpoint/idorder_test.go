package checkpoint_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// TestNewIDAfterSortsAfterAnIDFromTheFuture pins the id rule across
// processes: a head made by a clock ahead of this one still gets a
// greater id after it, and so do the ids this process makes next.
func TestNewIDAfterSortsAfterAnIDFromTheFuture(t *testing.T) {
	t.Parallel()
	// A millisecond an hour ahead, as another machine's clock may be.
	ms := fmt.Sprintf("%012x", time.Now().Add(time.Hour).UnixMilli())
	ahead := ms[:8] + "-" + ms[8:] + "-"
	cases := map[string]string{
		"a clock an hour ahead":       ahead + "7123-8456-000000000000",
		"random bits at their top":    ahead + "7fff-bfff-ffffffffffff",
		"the same millisecond, ahead": checkpoint.NewID()[:24] + "ffffffffffff",
	}
	for name, future := range cases {
		id := checkpoint.NewIDAfter(future)
		require.Greater(t, id, future, name)
		require.Len(t, id, 36, name)
		require.Equal(t, byte('7'), id[14], "%s: %s is a version 7 UUID", name, id)
		require.Contains(t, "89ab", string(id[19]), "%s: %s has the RFC 4122 variant", name, id)
		later := checkpoint.NewID()
		require.Greater(t, later, id, "%s: ids made next sort after it", name)
		require.Greater(t, checkpoint.NewIDAfter(id), id, name)
	}
}

// TestNewIDAfterAnOlderIDIsAFreshID pins the common case: the head is in
// the past, so the id is the clock's.
func TestNewIDAfterAnOlderIDIsAFreshID(t *testing.T) {
	t.Parallel()
	head := checkpoint.NewID()
	id := checkpoint.NewIDAfter(head)
	require.Greater(t, id, head)
	require.Greater(t, checkpoint.NewIDAfter(""), id)
}
