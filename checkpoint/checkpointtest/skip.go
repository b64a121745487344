package checkpointtest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var skipTests = []test{
	{name: "LeavesOutWhatItSkips", fn: testSkipLeavesOutWhatItSkips},
	{name: "CalledInYieldOrder", fn: testSkipCalledInYieldOrder},
	{name: "OnlyForYieldedCheckpoints", fn: testSkipOnlyForYieldedCheckpoints},
}

// putSkipHistory stores n checkpoints of three fields beside a schedule:
// "count" changes at every step (a small value), "big" is written once
// (larger than a value a backend keeps inline) and "items" grows by a
// delta at every step. The newest has pending writes. It returns the ids,
// oldest first.
func putSkipHistory(t *testing.T, s checkpoint.Saver, thread string, n int) []string {
	t.Helper()
	big := strings.Repeat("b", 2000)
	ids := make([]string, 0, n)
	var bigVersion, itemsVersion string
	for i := range n {
		id := checkpoint.NewID()
		blobs := map[string]checkpoint.Blob{
			"count":                full(id+".count", itoa(i)),
			checkpoint.NextChannel: full(id+".next", `{"nodes":["n`+itoa(i)+`"]}`),
		}
		if i == 0 {
			bigVersion = id + ".big"
			blobs["big"] = full(bigVersion, `"`+big+`"`)
			blobs["items"] = full(id+".items", `[0]`)
		} else {
			blobs["items"] = delta(id+".items", itemsVersion, "["+itoa(i)+"]")
		}
		itemsVersion = id + ".items"
		versions := map[string]string{"count": id + ".count", "big": bigVersion, "items": itemsVersion, checkpoint.NextChannel: id + ".next"}
		st := step{id: id, versions: versions, blobs: blobs,
			md: checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i}}
		if i > 0 {
			st.parent = ids[i-1]
		}
		mustPut(t, s, thread, st)
		ids = append(ids, id)
	}
	require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: ids[n-1]}, "task-a", []checkpoint.PendingWrite{
		pw("task-a", 0, "count", `7`), pw("task-a", -1, checkpoint.ErrorChannel, `{"error":"e"}`),
	}))
	return ids
}

// skipAllButNewest skips every field of every checkpoint but the first
// one listed, and "big" everywhere.
func skipAllButNewest() func(*checkpoint.Tuple, string) bool {
	first := ""
	return func(t *checkpoint.Tuple, ch string) bool {
		if first == "" {
			first = t.Checkpoint.ID
		}
		return ch == "big" || t.Checkpoint.ID != first
	}
}

func testSkipLeavesOutWhatItSkips(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	putSkipHistory(t, s, thread, 12)
	cfg := checkpoint.Config{ThreadID: thread}
	all := collect(t, s, cfg, checkpoint.ListOptions{})
	skip := skipAllButNewest()
	var skipped map[string]map[string]bool // checkpoint id → channels skipped
	got := collect(t, s, cfg, checkpoint.ListOptions{SkipValue: func(tup *checkpoint.Tuple, ch string) bool {
		if skipped == nil {
			skipped = map[string]map[string]bool{}
		}
		if skipped[tup.Checkpoint.ID] == nil {
			skipped[tup.Checkpoint.ID] = map[string]bool{}
		}
		s := skip(tup, ch)
		skipped[tup.Checkpoint.ID][ch] = s
		return s
	}})
	require.Len(t, got, len(all))
	for i, tup := range got {
		want := *all[i]
		want.Checkpoint.Values = maps.Clone(all[i].Checkpoint.Values)
		maps.DeleteFunc(want.Checkpoint.Values, func(ch string, _ checkpoint.Value) bool { return skipped[tup.Checkpoint.ID][ch] })
		requireSameTuple(t, &want, tup, "checkpoint %d of the listing", i)
		require.Contains(t, tup.Checkpoint.Values, checkpoint.NextChannel, "a reserved channel is read whatever SkipValue says")
		if i == 0 {
			require.Equal(t, []string{"count", "items"}, slices.Sorted(maps.Keys(withoutReserved(tup.Checkpoint.Values))), "the newest keeps what it did not skip")
			require.Len(t, tup.PendingWrites, 2, "pending writes are read whatever SkipValue says")
		} else {
			require.Empty(t, withoutReserved(tup.Checkpoint.Values), "checkpoint %d: every field skipped", i)
		}
	}
}

// withoutReserved is vs without the reserved channels.
func withoutReserved(vs map[string]checkpoint.Value) map[string]checkpoint.Value {
	out := maps.Clone(vs)
	maps.DeleteFunc(out, func(ch string, _ checkpoint.Value) bool { return checkpoint.IsReserved(ch) })
	return out
}

// skipCall is one call of SkipValue.
type skipCall struct{ id, channel string }

// recordSkips returns a SkipValue that records its calls in calls and
// skips nothing but "big", checking that t holds what the contract says.
func recordSkips(t *testing.T, calls *[]skipCall) func(*checkpoint.Tuple, string) bool {
	return func(tup *checkpoint.Tuple, ch string) bool {
		require.NotEmpty(t, tup.Config.CheckpointID)
		require.Equal(t, tup.Config.CheckpointID, tup.Checkpoint.ID)
		require.Contains(t, tup.Checkpoint.Versions, ch, "SkipValue is asked of the channels of Versions")
		require.False(t, checkpoint.IsReserved(ch), "SkipValue is not asked of reserved channel %q", ch)
		*calls = append(*calls, skipCall{tup.Checkpoint.ID, ch})
		return ch == "big"
	}
}

// requireCallsInOrder asserts that calls ask once of each field of each
// checkpoint of ids, in that order, all of one before the next.
func requireCallsInOrder(t *testing.T, calls []skipCall, ids []string, fields []string) {
	t.Helper()
	var order []string
	asked := map[string][]string{}
	for _, c := range calls {
		if len(order) == 0 || order[len(order)-1] != c.id {
			require.NotContains(t, order, c.id, "the calls for checkpoint %s are not together", c.id)
			order = append(order, c.id)
		}
		asked[c.id] = append(asked[c.id], c.channel)
	}
	require.Equal(t, ids, order, "SkipValue is called for the yielded checkpoints, in the order they are yielded")
	for _, id := range ids {
		require.ElementsMatch(t, fields, asked[id], "checkpoint %s: each field once", id)
	}
}

func testSkipCalledInYieldOrder(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putSkipHistory(t, s, thread, 40) // more than a first page of a paged List
	var calls []skipCall
	got := listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{SkipValue: recordSkips(t, &calls)})
	require.Equal(t, reversed(ids), got)
	requireCallsInOrder(t, calls, got, []string{"count", "big", "items"})

	calls = nil
	one := listIDs(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: ids[3]}, checkpoint.ListOptions{SkipValue: recordSkips(t, &calls)})
	require.Equal(t, []string{ids[3]}, one)
	requireCallsInOrder(t, calls, one, []string{"count", "big", "items"})
}

func testSkipOnlyForYieldedCheckpoints(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putSkipHistory(t, s, thread, 40)
	cfg := checkpoint.Config{ThreadID: thread}
	cases := []struct {
		name string
		opts checkpoint.ListOptions
		want []string
	}{
		{"limit", checkpoint.ListOptions{Limit: 3}, []string{ids[39], ids[38], ids[37]}},
		{"before", checkpoint.ListOptions{Before: ids[2]}, []string{ids[1], ids[0]}},
		{"filter", checkpoint.ListOptions{Filter: map[string]any{"step": 20}}, []string{ids[20]}},
		{"filter before limit", checkpoint.ListOptions{Filter: map[string]any{"source": "loop"}, Before: ids[30], Limit: 12},
			reversed(ids[18:30])},
	}
	for _, c := range cases {
		var calls []skipCall
		c.opts.SkipValue = recordSkips(t, &calls)
		got := collect(t, s, cfg, c.opts)
		gotIDs := []string{}
		for _, tup := range got {
			gotIDs = append(gotIDs, tup.Checkpoint.ID)
			require.NotContains(t, tup.Checkpoint.Values, "big", "%s: skipped", c.name)
			require.Contains(t, tup.Checkpoint.Values, "items", "%s: not skipped", c.name)
		}
		require.Equal(t, c.want, gotIDs, c.name)
		requireCallsInOrder(t, calls, gotIDs, []string{"count", "big", "items"})
	}
}
