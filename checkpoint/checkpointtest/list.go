package checkpointtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var listTests = []test{
	{name: "NewestFirst", fn: testListNewestFirst},
	{name: "Filter", fn: testListFilter},
	{name: "BeforeAndLimit", fn: testListBeforeAndLimit},
	{name: "OneCheckpointByID", fn: testListOneCheckpointByID},
	{name: "TuplesAreComplete", fn: testListTuplesAreComplete},
	{name: "NamespacesAreSeparate", fn: testListNamespacesAreSeparate},
	{name: "StopEarly", fn: testListStopEarly},
	{name: "UnknownThreadYieldsNothing", fn: testListUnknownThreadYieldsNothing},
	{name: "BeforeLimitFilterAcrossPages", fn: testListBeforeLimitFilterAcrossPages},
	{name: "WithCheckpointID", fn: testListWithCheckpointID},
}

func testListNewestFirst(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 5, nil)
	require.Equal(t, reversed(ids), listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}))
}

func testListFilter(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	// Steps 0..5: input on even steps, loop on odd; run A for steps 0-2,
	// run B for 3-5; Extra "user" alternates, "score" is 10*step.
	ids := putChain(t, s, thread, "", 6, func(i int) checkpoint.Metadata {
		md := checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, RunID: "run-a"}
		if i%2 == 0 {
			md.Source = checkpoint.SourceInput
		}
		if i >= 3 {
			md.RunID = "run-b"
		}
		user := "ann"
		if i%3 == 0 {
			user = "bob"
		}
		md.Extra = map[string]any{"user": user, "score": 10 * i, "tags": []any{"t", i}}
		return md
	})
	pick := func(is ...int) []string {
		out := []string{}
		for _, i := range is {
			out = append(out, ids[i])
		}
		return out
	}
	cases := []struct {
		name   string
		filter map[string]any
		limit  int
		want   []string
	}{
		{"nil filter", nil, 0, pick(5, 4, 3, 2, 1, 0)},
		{"source", map[string]any{"source": "input"}, 0, pick(4, 2, 0)},
		{"typed source", map[string]any{"source": checkpoint.SourceLoop}, 0, pick(5, 3, 1)},
		{"step", map[string]any{"step": 3}, 0, pick(3)},
		{"step as float", map[string]any{"step": 3.0}, 0, pick(3)},
		{"run id", map[string]any{"run_id": "run-b"}, 0, pick(5, 4, 3)},
		{"extra string", map[string]any{"user": "bob"}, 0, pick(3, 0)},
		{"extra number", map[string]any{"score": 40}, 0, pick(4)},
		{"extra list", map[string]any{"tags": []any{"t", 2}}, 0, pick(2)},
		{"several keys", map[string]any{"source": "loop", "run_id": "run-a"}, 0, pick(1)},
		{"several keys with extra", map[string]any{"source": "input", "user": "ann"}, 0, pick(4, 2)},
		{"no match", map[string]any{"source": "update", "step": 99}, 0, pick()},
		{"unknown key", map[string]any{"missing": "x"}, 0, pick()},
		{"filter then limit", map[string]any{"user": "ann"}, 2, pick(5, 4)},
	}
	for _, c := range cases {
		got := listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: c.filter, Limit: c.limit})
		require.Equal(t, c.want, got, c.name)
	}
	// The filter matches on the stored metadata, which comes back whole.
	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: map[string]any{"score": 50}})
	require.Len(t, list, 1)
	require.Equal(t, "run-b", list[0].Metadata.RunID)
	require.EqualValues(t, 50, list[0].Metadata.Extra["score"])
}

func testListBeforeAndLimit(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 5, nil)
	cases := []struct {
		name   string
		before string
		limit  int
		want   []string
	}{
		{"limit 1", "", 1, []string{ids[4]}},
		{"limit 3", "", 3, []string{ids[4], ids[3], ids[2]}},
		{"limit above count", "", 10, reversed(ids)},
		{"before the head", ids[4], 0, []string{ids[3], ids[2], ids[1], ids[0]}},
		{"before a middle one", ids[2], 0, []string{ids[1], ids[0]}},
		{"before the first", ids[0], 0, []string{}},
		{"before and limit", ids[3], 1, []string{ids[2]}},
		{"before and limit 2", ids[4], 2, []string{ids[3], ids[2]}},
		{"before an id newer than all", checkpoint.NewID(), 2, []string{ids[4], ids[3]}},
	}
	for _, c := range cases {
		got := listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Before: c.before, Limit: c.limit})
		require.Equal(t, c.want, got, c.name)
	}
}

func testListOneCheckpointByID(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	for i, id := range ids {
		list := collect(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}, checkpoint.ListOptions{})
		require.Len(t, list, 1, "checkpoint %d", i)
		require.Equal(t, id, list[0].Checkpoint.ID)
		requireValues(t, map[string]val{"n": {"n" + itoa(i), itoa(i), nil}}, list[0].Checkpoint.Values)
	}
	// An unknown id lists nothing (or reports ErrNotFound).
	for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}, checkpoint.ListOptions{}) {
		require.Nil(t, tup, "an unknown checkpoint id lists nothing")
		require.True(t, errors.Is(err, checkpoint.ErrNotFound), "listing an unknown checkpoint id: %v", err)
	}
}

func testListTuplesAreComplete(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ctx := context.Background()
	first := mustPut(t, s, thread, step{
		md:    checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1, RunID: "r"},
		blobs: map[string]checkpoint.Blob{"a": full("a1", `"a"`), "items": full("i1", `[1]`)},
	})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: first}, "t1",
		[]checkpoint.PendingWrite{pw("t1", 0, "a", `"w"`)}))
	second := mustPut(t, s, thread, step{
		parent:   first,
		md:       checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, RunID: "r", Nodes: []string{"n1"}},
		versions: map[string]string{"a": "a1", "items": "i2"},
		blobs:    map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)},
	})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: second}, "t2",
		[]checkpoint.PendingWrite{pw("t2", 0, "items", `[3]`), pw("t2", -1, checkpoint.ErrorChannel, `"e"`)}))

	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, list, 2)
	for i, tup := range list {
		requireSameTuple(t, mustGet(t, s, tup.Config), tup, "listed tuple %d against Get", i)
	}
	requireValues(t, map[string]val{"a": {"a1", `"a"`, nil}, "items": {"i2", `[1]`, []string{`[2]`}}}, list[0].Checkpoint.Values)
	requireWrites(t, []write{{"t2", -1, checkpoint.ErrorChannel, `"e"`}, {"t2", 0, "items", `[3]`}}, list[0].PendingWrites)
	require.Equal(t, &checkpoint.Config{ThreadID: thread, CheckpointID: first}, list[0].Parent)
	requireMetadata(t, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, RunID: "r", Nodes: []string{"n1"}}, list[0].Metadata)

	requireValues(t, map[string]val{"a": {"a1", `"a"`, nil}, "items": {"i1", `[1]`, nil}}, list[1].Checkpoint.Values)
	requireWrites(t, []write{{"t1", 0, "a", `"w"`}}, list[1].PendingWrites)
	require.Nil(t, list[1].Parent)
	require.Equal(t, checkpoint.SourceInput, list[1].Metadata.Source)
}

func testListNamespacesAreSeparate(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	root := putChain(t, s, thread, "", 2, nil)
	child1 := putChain(t, s, thread, "child:1", 3, nil)
	child2 := putChain(t, s, thread, "child:2", 1, nil)
	cases := map[string][]string{"": root, "child:1": child1, "child:2": child2, "child:3": nil}
	for ns, ids := range cases {
		list := collect(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{})
		got := []string{}
		for _, tup := range list {
			require.Equal(t, ns, tup.Config.Namespace)
			got = append(got, tup.Checkpoint.ID)
		}
		require.Equal(t, reversed(ids), got, "ns %q", ns)
	}
}

func testListStopEarly(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 5, nil)
	var got []string
	for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		got = append(got, tup.Checkpoint.ID)
		if len(got) == 2 {
			break
		}
	}
	require.Equal(t, []string{ids[4], ids[3]}, got)
	// The saver is usable after an abandoned iteration, also for writing.
	mustPut(t, s, thread, step{parent: ids[4], blobs: map[string]checkpoint.Blob{"n": full("after", "9")}})
	require.Len(t, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}), 6)
}

func testListUnknownThreadYieldsNothing(t *testing.T, s checkpoint.Saver) {
	putChain(t, s, newThreadID(), "", 1, nil)
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: newThreadID()}, checkpoint.ListOptions{}))
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: newThreadID()}, checkpoint.ListOptions{Filter: map[string]any{"source": "loop"}, Limit: 3}))
}

// testListBeforeLimitFilterAcrossPages combines Before, Limit and Filter over a
// history longer than the backends' pages (sqlite 8→32→128, postgres 100),
// with filters a backend can run in SQL (strings) and ones it cannot.
// Mirrors LangGraph conformance test_list_limit_plus_before, extended with
// a filter.
func testListBeforeLimitFilterAcrossPages(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	const n = 150
	md := func(i int) checkpoint.Metadata {
		even := "no"
		if i%2 == 0 {
			even = "yes"
		}
		return checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, Extra: map[string]any{"mod3": i % 3, "even": even, "i": i}}
	}
	ids := putChain(t, s, thread, "", n, md)
	before := func(i int) string { return ids[i] }
	cases := []struct {
		name   string
		filter map[string]any
		before string
		limit  int
	}{
		{"number filter, before, limit", map[string]any{"mod3": 0}, before(120), 7},
		{"string filter, before, limit across pages", map[string]any{"even": "yes"}, before(100), 30},
		{"mixed filter, before, no limit", map[string]any{"mod3": 1, "even": "no"}, before(149), 0},
		{"sparse number filter, small limit", map[string]any{"i": 3}, before(4), 1},
		{"match is the before id itself", map[string]any{"i": 3}, before(3), 0},
		{"no filter, limit across pages", nil, before(149), 120},
		{"no filter, no limit", nil, before(140), 0},
		{"negative limit means no limit", map[string]any{"even": "no"}, "", -1},
		{"filter then limit larger than matches", map[string]any{"mod3": 2}, before(20), 100},
		{"before an unknown id between two", map[string]any{"even": "yes"}, ids[50][:len(ids[50])-1], 3},
	}
	for _, c := range cases {
		want := []string{}
		for i := n - 1; i >= 0; i-- {
			if c.before != "" && ids[i] >= c.before {
				continue
			}
			if !md(i).Matches(c.filter) {
				continue
			}
			if c.limit > 0 && len(want) == c.limit {
				break
			}
			want = append(want, ids[i])
		}
		got := listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: c.filter, Before: c.before, Limit: c.limit})
		require.Equal(t, want, got, c.name)
	}
}

// testListWithCheckpointID: List with cfg.CheckpointID lists only that
// checkpoint, narrowed further by Before, Filter and Limit.
func testListWithCheckpointID(t *testing.T, s checkpoint.Saver) {
	thread, other := newThreadID(), newThreadID()
	ids := putChain(t, s, thread, "", 5, func(i int) checkpoint.Metadata {
		return checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, Extra: map[string]any{"k": i % 2, "name": fmt.Sprint("c", i)}}
	})
	putChain(t, s, other, "", 1, nil)
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: ids[2]}
	cases := []struct {
		name string
		cfg  checkpoint.Config
		opts checkpoint.ListOptions
		want []string
	}{
		{"plain", cfg, checkpoint.ListOptions{}, []string{ids[2]}},
		{"before a newer id", cfg, checkpoint.ListOptions{Before: ids[3]}, []string{ids[2]}},
		{"before itself", cfg, checkpoint.ListOptions{Before: ids[2]}, []string{}},
		{"before an older id", cfg, checkpoint.ListOptions{Before: ids[1]}, []string{}},
		{"matching number filter", cfg, checkpoint.ListOptions{Filter: map[string]any{"k": 0}}, []string{ids[2]}},
		{"non-matching number filter", cfg, checkpoint.ListOptions{Filter: map[string]any{"k": 1}}, []string{}},
		{"matching string filter", cfg, checkpoint.ListOptions{Filter: map[string]any{"name": "c2"}}, []string{ids[2]}},
		{"non-matching string filter", cfg, checkpoint.ListOptions{Filter: map[string]any{"name": "c3"}}, []string{}},
		{"step filter", cfg, checkpoint.ListOptions{Filter: map[string]any{"step": 2}}, []string{ids[2]}},
		{"limit 1", cfg, checkpoint.ListOptions{Limit: 1}, []string{ids[2]}},
		{"limit 5", cfg, checkpoint.ListOptions{Limit: 5}, []string{ids[2]}},
		{"everything", cfg, checkpoint.ListOptions{Before: ids[4], Limit: 3, Filter: map[string]any{"k": 0, "name": "c2"}}, []string{ids[2]}},
		{"other namespace", checkpoint.Config{ThreadID: thread, Namespace: "child:1", CheckpointID: ids[2]}, checkpoint.ListOptions{}, []string{}},
		{"other thread", checkpoint.Config{ThreadID: other, CheckpointID: ids[2]}, checkpoint.ListOptions{}, []string{}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, listIDs(t, s, c.cfg, c.opts), c.name)
	}
}
