package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// orderTests pin that the head decides checkpoint order: a Put whose id
// does not sort after the head — made by another process's clock — is a
// conflict that stores nothing, and a Put that wins moves the head.
var orderTests = []test{
	{name: "IDNotAfterHeadIsConflict", fn: testOrderIDNotAfterHeadIsConflict},
	{name: "WinningPutMovesHead", fn: testOrderWinningPutMovesHead},
}

func testOrderIDNotAfterHeadIsConflict(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	for _, ns := range []string{"", "child:1"} {
		thread := newThreadID()
		ids := putChain(t, s, thread, ns, 2, nil)
		head := ids[1]
		cases := map[string]string{
			"an id below every id":          "00000000-0000-7000-8000-000000000000",
			"an id between the stored ones": between(ids[0], ids[1]),
			"an id just below the head":     below(head),
			"the id of an older checkpoint": ids[0],
			"the id of the head itself":     head,
		}
		for name, id := range cases {
			req := step{ns: ns, parent: head, blobs: map[string]checkpoint.Blob{"n": full("late-"+id, `"late"`)}}.request(thread)
			req.Checkpoint.ID = id
			_, err := s.Put(ctx, req)
			requireConflict(t, err, thread, "ns %q: %s", ns, name)

			// Nothing was stored, and the head stayed.
			require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}), "ns %q: %s", ns, name)
			latest := mustGet(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns})
			require.Equal(t, head, latest.Checkpoint.ID, "ns %q: %s", ns, name)
			requireValues(t, map[string]val{"n": {"n1", "1", nil}}, latest.Checkpoint.Values, "ns %q: %s", ns, name)
			if id != ids[0] && id != head {
				_, err = s.Get(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: id})
				requireNotFound(t, err, thread, "ns %q: %s: the rejected checkpoint must not be stored", ns, name)
			}
		}
	}
}

func testOrderWinningPutMovesHead(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 2, nil)
	// An id far in the future, as a process with a fast clock makes it:
	// it wins and becomes the head; the next Put must expect it.
	req := step{parent: ids[1], blobs: map[string]checkpoint.Blob{"n": full("future", `"future"`)}}.request(thread)
	req.Checkpoint.ID = "ffffffff-ffff-7fff-bfff-fffffffffff0"
	_, err := s.Put(ctx, req)
	require.NoError(t, err)
	require.Equal(t, req.Checkpoint.ID, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID)

	stale := step{parent: ids[1], blobs: map[string]checkpoint.Blob{"n": full("stale", `"stale"`)}}.request(thread)
	_, err = s.Put(ctx, stale)
	requireConflict(t, err, thread, "the head moved to the future id")
	next := step{parent: req.Checkpoint.ID, blobs: map[string]checkpoint.Blob{"n": full("next", `"next"`)}}.request(thread)
	next.Checkpoint.ID = "ffffffff-ffff-7fff-bfff-fffffffffff1"
	_, err = s.Put(ctx, next)
	require.NoError(t, err)
	require.Equal(t, next.Checkpoint.ID, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID)
}

// below returns the id just below id: one less, as a hex number (the
// hyphens stay where they are).
func below(id string) string {
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case '-':
			continue
		case '0':
			b[i] = 'f' // borrow
			continue
		case 'a':
			b[i] = '9'
		default:
			b[i]--
		}
		break
	}
	return string(b)
}

// between returns an id greater than lo and less than hi (lo < hi).
func between(lo, hi string) string {
	if b := below(hi); b > lo {
		return b
	}
	return lo + "0" // lo extended sorts right after lo
}
