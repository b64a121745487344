package checkpointtest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var putTests = []test{
	{name: "RoundTripsEveryValueKind", fn: testPutRoundTripsEveryValueKind},
	{name: "RoundTripsCheckpointFields", fn: testPutRoundTripsCheckpointFields},
	{name: "RoundTripsMetadata", fn: testPutRoundTripsMetadata},
	{name: "NamespacesAreSeparateHeads", fn: testPutNamespacesAreSeparateHeads},
	{name: "ReturnsParentInTuple", fn: testPutReturnsParentInTuple},
	{name: "StoresOnlyChangedChannels", fn: testPutStoresOnlyChangedChannels},
	{name: "ChannelAddedAndRemoved", fn: testPutChannelAddedAndRemoved},
	{name: "RebuildsDeltaChains", fn: testPutRebuildsDeltaChains},
	{name: "BranchesReadTheirOwnBlobs", fn: testPutBranchesReadTheirOwnBlobs},
	{name: "DeltaWithEmptyBase", fn: testPutDeltaWithEmptyBase},
	{name: "BlobWithoutVersion", fn: testPutBlobWithoutVersion},
	{name: "CreatedAtRoundTrips", fn: testPutCreatedAtRoundTrips},
	{name: "LargeBlobsAndWrites", fn: testPutLargeBlobsAndWrites},
}

// valueKinds are channel values of every shape a serializer produces.
func valueKinds() map[string]string {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	return map[string]string{
		"string":        `"hello"`,
		"unicode":       `"héllo wörld ✓ \u0000 \"quoted\" \n"`,
		"int":           `42`,
		"negative":      `-7`,
		"float":         `3.14159e-10`,
		"bool":          `true`,
		"null":          `null`,
		"empty-string":  `""`,
		"empty-list":    `[]`,
		"empty-object":  `{}`,
		"zero-length":   ``,
		"nested":        `{"a":[1,2,{"b":null,"c":"d"}],"e":{"f":{"g":[true,false]}}}`,
		"binary":        string(binary),
		"large":         `"` + strings.Repeat("x", 1<<20) + `"`,
		"many-elements": `[` + strings.TrimSuffix(strings.Repeat(`"item",`, 10000), ",") + `]`,
	}
}

func testPutRoundTripsEveryValueKind(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	blobs := map[string]checkpoint.Blob{}
	want := map[string]val{}
	for ch, data := range valueKinds() {
		blobs[ch] = full("v1-"+ch, data)
		want[ch] = val{version: "v1-" + ch, snapshot: data}
	}
	id := mustPut(t, s, thread, step{blobs: blobs})

	tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id})
	requireValues(t, want, tup.Checkpoint.Values, "get by id")
	tup = mustGet(t, s, checkpoint.Config{ThreadID: thread})
	requireValues(t, want, tup.Checkpoint.Values, "get latest")
	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, list, 1)
	requireValues(t, want, list[0].Checkpoint.Values, "list")
}

func testPutRoundTripsCheckpointFields(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	req := step{blobs: map[string]checkpoint.Blob{"a": full("1", `"a"`), "b": full("1", `"b"`)}}.request(thread)
	cfg, err := s.Put(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, checkpoint.Config{ThreadID: thread, CheckpointID: req.Checkpoint.ID}, cfg)

	tup := mustGet(t, s, cfg)
	require.Equal(t, cfg, tup.Config)
	require.Equal(t, req.Checkpoint.ID, tup.Checkpoint.ID)
	require.True(t, req.Checkpoint.CreatedAt.Equal(tup.Checkpoint.CreatedAt),
		"CreatedAt: put %s, got %s", req.Checkpoint.CreatedAt, tup.Checkpoint.CreatedAt)
	require.Equal(t, map[string]string{"a": "1", "b": "1"}, tup.Checkpoint.Versions)
	require.Nil(t, tup.Checkpoint.New, "Get leaves Checkpoint.New nil")
	require.Nil(t, tup.Parent, "the first checkpoint has no parent")
	require.Empty(t, tup.PendingWrites)
}

func testPutRoundTripsMetadata(t *testing.T, s checkpoint.Saver) {
	cases := []struct {
		name string
		md   checkpoint.Metadata
	}{
		{"input", checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1}},
		{"loop", checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 3, RunID: "run-1", Nodes: []string{"b", "a"}}},
		{"update", checkpoint.Metadata{Source: checkpoint.SourceUpdate, Step: 7, Nodes: []string{"human"}}},
		{"fork", checkpoint.Metadata{Source: checkpoint.SourceFork, Step: 2}},
		{"subgraph", checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, Parents: map[string]string{"": checkpoint.NewID(), "outer:1": checkpoint.NewID()}}},
		{"extra", checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, RunID: "run-2", Extra: map[string]any{
			"user":   "ann",
			"score":  42,
			"ratio":  0.5,
			"ok":     true,
			"none":   nil,
			"tags":   []any{"x", 1.0},
			"nested": map[string]any{"k": []any{1, "two", map[string]any{"three": 3}}},
		}}},
	}
	for _, c := range cases {
		thread := newThreadID()
		id := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"a": full("1", "1")}, md: c.md})
		requireMetadata(t, c.md, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).Metadata)
		list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
		require.Len(t, list, 1, c.name)
		requireMetadata(t, c.md, list[0].Metadata)
	}
}

func testPutNamespacesAreSeparateHeads(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	root := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"x": full("r1", `"root"`)}})
	// The child namespace is empty, so its first put expects head "".
	child := mustPut(t, s, thread, step{ns: "child:1", blobs: map[string]checkpoint.Blob{"x": full("c1", `"child"`)}})
	root2 := mustPut(t, s, thread, step{parent: root, blobs: map[string]checkpoint.Blob{"x": full("r2", `"root2"`)}})

	got := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Equal(t, root2, got.Checkpoint.ID)
	require.Equal(t, "", got.Config.Namespace)
	requireValues(t, map[string]val{"x": {"r2", `"root2"`, nil}}, got.Checkpoint.Values)

	got = mustGet(t, s, checkpoint.Config{ThreadID: thread, Namespace: "child:1"})
	require.Equal(t, child, got.Checkpoint.ID)
	require.Equal(t, "child:1", got.Config.Namespace)
	requireValues(t, map[string]val{"x": {"c1", `"child"`, nil}}, got.Checkpoint.Values)
}

func testPutReturnsParentInTuple(t *testing.T, s checkpoint.Saver) {
	for _, ns := range []string{"", "child:1"} {
		thread := newThreadID()
		ids := putChain(t, s, thread, ns, 3, nil)
		for i, id := range ids {
			tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: id})
			if i == 0 {
				require.Nil(t, tup.Parent, "ns %q: first checkpoint", ns)
				continue
			}
			require.NotNil(t, tup.Parent, "ns %q: checkpoint %d", ns, i)
			require.Equal(t, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: ids[i-1]}, *tup.Parent)
		}
	}
}

func testPutStoresOnlyChangedChannels(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	first := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{
		"a": full("a1", `"a one"`),
		"b": full("b1", `"b one"`),
		"c": full("c1", `"c one"`),
	}})
	// Only b changed: its new blob is the only one handed over.
	second := mustPut(t, s, thread, step{
		parent:   first,
		versions: map[string]string{"a": "a1", "b": "b2", "c": "c1"},
		blobs:    map[string]checkpoint.Blob{"b": full("b2", `"b two"`)},
	})
	// Then nothing changed at all.
	third := mustPut(t, s, thread, step{
		parent:   second,
		versions: map[string]string{"a": "a1", "b": "b2", "c": "c1"},
	})

	want1 := map[string]val{"a": {"a1", `"a one"`, nil}, "b": {"b1", `"b one"`, nil}, "c": {"c1", `"c one"`, nil}}
	want2 := map[string]val{"a": {"a1", `"a one"`, nil}, "b": {"b2", `"b two"`, nil}, "c": {"c1", `"c one"`, nil}}
	requireValues(t, want1, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: first}).Checkpoint.Values, "first")
	requireValues(t, want2, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: second}).Checkpoint.Values, "second")
	requireValues(t, want2, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: third}).Checkpoint.Values, "third")
	requireValues(t, want2, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.Values, "latest")
}

func testPutChannelAddedAndRemoved(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	first := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"a": full("a1", "1"), "b": full("b1", "2")}})
	// b is removed (absent from Versions), c is added.
	second := mustPut(t, s, thread, step{
		parent:   first,
		versions: map[string]string{"a": "a1", "c": "c1"},
		blobs:    map[string]checkpoint.Blob{"c": full("c1", "3")},
	})
	// b comes back with a new version.
	third := mustPut(t, s, thread, step{
		parent:   second,
		versions: map[string]string{"a": "a1", "b": "b2", "c": "c1"},
		blobs:    map[string]checkpoint.Blob{"b": full("b2", "4")},
	})
	// Everything is removed.
	fourth := mustPut(t, s, thread, step{parent: third, versions: map[string]string{}})

	cases := []struct {
		id   string
		want map[string]val
	}{
		{first, map[string]val{"a": {"a1", "1", nil}, "b": {"b1", "2", nil}}},
		{second, map[string]val{"a": {"a1", "1", nil}, "c": {"c1", "3", nil}}},
		{third, map[string]val{"a": {"a1", "1", nil}, "b": {"b2", "4", nil}, "c": {"c1", "3", nil}}},
		{fourth, map[string]val{}},
	}
	for i, c := range cases {
		tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: c.id})
		requireValues(t, c.want, tup.Checkpoint.Values, "checkpoint %d", i)
		require.Len(t, tup.Checkpoint.Versions, len(c.want), "checkpoint %d", i)
	}
}

func testPutRebuildsDeltaChains(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	// snapshot → delta → delta → new snapshot → delta, with an unchanged
	// last-value channel alongside.
	steps := []struct {
		blob checkpoint.Blob
		want val
	}{
		{full("v1", `["a"]`), val{"v1", `["a"]`, nil}},
		{delta("v2", "v1", `["b"]`), val{"v2", `["a"]`, []string{`["b"]`}}},
		{delta("v3", "v2", `["c"]`), val{"v3", `["a"]`, []string{`["b"]`, `["c"]`}}},
		{full("v4", `["a","b","c","d"]`), val{"v4", `["a","b","c","d"]`, nil}},
		{delta("v5", "v4", `["e"]`), val{"v5", `["a","b","c","d"]`, []string{`["e"]`}}},
		{delta("v6", "v5", `[]`), val{"v6", `["a","b","c","d"]`, []string{`["e"]`, `[]`}}},
	}
	ids := make([]string, len(steps))
	parent := ""
	for i, st := range steps {
		blobs := map[string]checkpoint.Blob{"items": st.blob}
		if i == 0 {
			blobs["name"] = full("n1", `"fixed"`)
		}
		parent = mustPut(t, s, thread, step{
			parent:   parent,
			versions: map[string]string{"items": st.blob.Version, "name": "n1"},
			blobs:    blobs,
		})
		ids[i] = parent
	}
	for i, st := range steps {
		want := map[string]val{"items": st.want, "name": {"n1", `"fixed"`, nil}}
		tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: ids[i]})
		requireValues(t, want, tup.Checkpoint.Values, "get checkpoint %d", i)
	}
	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, list, len(steps))
	for i, tup := range list {
		j := len(steps) - 1 - i
		want := map[string]val{"items": steps[j].want, "name": {"n1", `"fixed"`, nil}}
		requireValues(t, want, tup.Checkpoint.Values, "list checkpoint %d", j)
	}
}

func testPutBranchesReadTheirOwnBlobs(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	root := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{
		"x":     full("x1", `"root"`),
		"items": full("i1", `["r"]`),
	}})
	// Two children of root: the second is a fork (its parent is root, the
	// head is the first child). Versions are unique across branches.
	left := mustPut(t, s, thread, step{parent: root, blobs: map[string]checkpoint.Blob{
		"x":     full("x2-left", `"left"`),
		"items": delta("i2-left", "i1", `["L"]`),
	}})
	right := mustPut(t, s, thread, step{parent: root, head: &left, md: checkpoint.Metadata{Source: checkpoint.SourceFork}, blobs: map[string]checkpoint.Blob{
		"x":     full("x2-right", `"right"`),
		"items": delta("i2-right", "i1", `["R"]`),
	}})
	leftChild := mustPut(t, s, thread, step{parent: left, head: &right, blobs: map[string]checkpoint.Blob{
		"x":     full("x3-left", `"left again"`),
		"items": delta("i3-left", "i2-left", `["L2"]`),
	}})

	cases := []struct {
		name   string
		id     string
		parent string
		want   map[string]val
	}{
		{"root", root, "", map[string]val{"x": {"x1", `"root"`, nil}, "items": {"i1", `["r"]`, nil}}},
		{"left", left, root, map[string]val{"x": {"x2-left", `"left"`, nil}, "items": {"i2-left", `["r"]`, []string{`["L"]`}}}},
		{"right", right, root, map[string]val{"x": {"x2-right", `"right"`, nil}, "items": {"i2-right", `["r"]`, []string{`["R"]`}}}},
		{"left child", leftChild, left, map[string]val{"x": {"x3-left", `"left again"`, nil}, "items": {"i3-left", `["r"]`, []string{`["L"]`, `["L2"]`}}}},
	}
	for _, c := range cases {
		tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: c.id})
		requireValues(t, c.want, tup.Checkpoint.Values, c.name)
		if c.parent != "" {
			require.NotNil(t, tup.Parent, c.name)
			require.Equal(t, c.parent, tup.Parent.CheckpointID, c.name)
		}
	}
	require.Equal(t, leftChild, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.ID, "the newest checkpoint is the head")
}

// testPutDeltaWithEmptyBase: "A delta with an empty Base extends the empty
// value": a chain with no snapshot at all reads back as deltas only, and
// stays readable after Prune.
func testPutDeltaWithEmptyBase(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	a := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"log": delta("l1", "", `["a"]`)}})
	b := mustPut(t, s, thread, step{parent: a, blobs: map[string]checkpoint.Blob{"log": delta("l2", "l1", `["b"]`)}})
	c := mustPut(t, s, thread, step{parent: b, blobs: map[string]checkpoint.Blob{"log": delta("l3", "l2", `["c"]`)}})
	want := map[string]val{
		a: {"l1", "", []string{`["a"]`}},
		b: {"l2", "", []string{`["a"]`, `["b"]`}},
		c: {"l3", "", []string{`["a"]`, `["b"]`, `["c"]`}},
	}
	for id, w := range want {
		requireValues(t, map[string]val{"log": w}, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).Checkpoint.Values, "get %s", id)
	}
	for _, tup := range collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		requireValues(t, map[string]val{"log": want[tup.Checkpoint.ID]}, tup.Checkpoint.Values, "list %s", tup.Checkpoint.ID)
	}
	if p, ok := s.(checkpoint.Pruner); ok {
		require.NoError(t, p.Prune(context.Background(), thread, 1))
		requireValues(t, map[string]val{"log": want[c]}, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.Values, "after Prune")
	}
}

// testPutBlobWithoutVersion: a new blob with an empty Version is stored
// under the checkpoint's version of its channel; one with neither is
// refused, storing nothing.
func testPutBlobWithoutVersion(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	mustPut(t, s, thread, step{versions: map[string]string{"a": "a1"}, blobs: map[string]checkpoint.Blob{"a": {Data: []byte(`"x"`)}}})
	requireValues(t, map[string]val{"a": {"a1", `"x"`, nil}}, mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.Values)

	other := newThreadID()
	req := step{versions: map[string]string{}, blobs: map[string]checkpoint.Blob{"a": {Data: []byte(`"x"`)}}}.request(other)
	_, err := s.Put(context.Background(), req)
	require.Error(t, err, "a blob without a version, of a channel the checkpoint has no version for")
	_, err = s.Get(context.Background(), checkpoint.Config{ThreadID: other})
	requireNotFound(t, err, other, "a refused Put stores nothing")
}

// testPutCreatedAtRoundTrips: CreatedAt compares equal (at microsecond
// precision) for any instant a time.Time holds, in any location.
func testPutCreatedAtRoundTrips(t *testing.T, s checkpoint.Saver) {
	cases := []struct {
		name string
		at   time.Time
	}{
		{"unix epoch", time.Unix(0, 0)},
		{"epoch plus a microsecond", time.Unix(0, 1000)},
		{"zero time", time.Time{}},
		{"1900", time.Date(1900, 1, 2, 3, 4, 5, 6000, time.UTC)},
		{"2500", time.Date(2500, 6, 1, 0, 0, 0, 0, time.UTC)},
		{"other location", time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.FixedZone("IST", 5*3600+1800))},
	}
	for _, c := range cases {
		thread := newThreadID()
		req := step{blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}}.request(thread)
		req.Checkpoint.CreatedAt = c.at
		_, err := s.Put(context.Background(), req)
		require.NoError(t, err, c.name)
		got := mustGet(t, s, checkpoint.Config{ThreadID: thread}).Checkpoint.CreatedAt
		require.True(t, c.at.Equal(got), "%s: put %s, got %s", c.name, c.at, got)
		got = collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})[0].Checkpoint.CreatedAt
		require.True(t, c.at.Equal(got), "%s (list): put %s, got %s", c.name, c.at, got)
	}
}

// Values

// testPutLargeBlobsAndWrites: blobs and writes of a few MB round-trip through Put,
// PutWrites, Get, List and CopyThread.
func testPutLargeBlobsAndWrites(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	snap := randomBytes(t, 4<<20)
	d1, d2 := randomBytes(t, 2<<20), randomBytes(t, 1<<20+3)
	wv := randomBytes(t, 3<<20)
	a := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"big": {Version: "b1", Data: snap}, "log": {Version: "l1", Data: d1}}})
	b := mustPut(t, s, thread, step{parent: a, versions: map[string]string{"big": "b1", "log": "l2"}, blobs: map[string]checkpoint.Blob{"log": {Version: "l2", Data: d2, Delta: true, Base: "l1"}}})
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: b}
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{{Index: 0, Channel: "big", Value: wv}}))
	check := func(tup *checkpoint.Tuple, what string) {
		require.True(t, bytes.Equal(snap, tup.Checkpoint.Values["big"].Snapshot), what)
		require.True(t, bytes.Equal(d1, tup.Checkpoint.Values["log"].Snapshot), what)
		require.Len(t, tup.Checkpoint.Values["log"].Deltas, 1, what)
		require.True(t, bytes.Equal(d2, tup.Checkpoint.Values["log"].Deltas[0]), what)
		require.Len(t, tup.PendingWrites, 1, what)
		require.True(t, bytes.Equal(wv, tup.PendingWrites[0].Value), what)
	}
	check(mustGet(t, s, cfg), "get")
	check(collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Limit: 1})[0], "list")
	if c, ok := s.(checkpoint.Copier); ok {
		dst := newThreadID()
		require.NoError(t, c.CopyThread(ctx, thread, dst))
		check(mustGet(t, s, checkpoint.Config{ThreadID: dst}), "copy")
	}
}
