package checkpointtest

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var metadataTests = []test{
	{name: "FilterValueKinds", fn: testMetadataFilterValueKinds},
	{name: "StringWithNUL", fnh: testMetadataStringWithNUL},
	{name: "NestedRoundTrips", fn: testMetadataNestedRoundTrips},
	{name: "ReturnedIsTheCallers", fn: testMetadataReturnedIsTheCallers},
}

// Metadata and filters

// testMetadataFilterValueKinds: filters on values of every JSON kind compare
// as checkpoint.Metadata.Matches does (a JSON round trip, then equality; a
// key must be present). Mirrors LangGraph checkpoint-sqlite test_search
// (nested "writes" filter, "score": None) and conformance
// test_list_metadata_custom_keys.
func testMetadataFilterValueKinds(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	mds := []checkpoint.Metadata{
		{Source: checkpoint.SourceLoop, Step: 0, Extra: map[string]any{
			"flag": true, "num": 1, "str": "1", "none": nil, "s": "", "ключ": "значение",
			"nested":     map[string]any{"a": 1, "b": []any{"x", map[string]any{"c": nil}}},
			"empty_list": []any{}, "empty_obj": map[string]any{}, "big": int64(1)<<53 + 1,
		}},
		{Source: checkpoint.SourceLoop, Step: 1, Extra: map[string]any{
			"flag": false, "num": 1.5, "str": "x", "s": "nonempty", "neg": -2,
			"nested": map[string]any{"a": 1}, "empty_list": []any{1}, "empty_obj": map[string]any{"k": 1},
		}},
		{Source: checkpoint.SourceLoop, Step: 2, Extra: map[string]any{
			"flag": 1, "num": 0, "zero": 0, "run_id": "extra-run", "source": "shadowed", "step": 99,
		}},
		{Source: checkpoint.SourceUpdate, Step: 3, RunID: "real-run", Extra: map[string]any{"run_id": "extra-run"}},
		{Source: checkpoint.SourceInput, Step: -1},
	}
	ids := putChain(t, s, thread, "", len(mds), func(i int) checkpoint.Metadata { return mds[i] })
	cases := []struct {
		name   string
		filter map[string]any
		want   []int
	}{
		{"bool true", map[string]any{"flag": true}, []int{0}},
		{"bool false", map[string]any{"flag": false}, []int{1}},
		{"number 1 is not true", map[string]any{"flag": 1}, []int{2}},
		{"int", map[string]any{"num": 1}, []int{0}},
		{"float", map[string]any{"num": 1.5}, []int{1}},
		{"zero", map[string]any{"num": 0}, []int{2}},
		{"int32 zero", map[string]any{"zero": int32(0)}, []int{2}},
		{"string is not a number", map[string]any{"num": "1"}, nil},
		{"number is not a string", map[string]any{"str": 1}, nil},
		{"string", map[string]any{"str": "1"}, []int{0}},
		{"null matches a present null", map[string]any{"none": nil}, []int{0}},
		{"null does not match a missing key", map[string]any{"missing": nil}, nil},
		{"null does not match a value", map[string]any{"str": nil}, nil},
		{"empty string", map[string]any{"s": ""}, []int{0}},
		{"unicode key and value", map[string]any{"ключ": "значение"}, []int{0}},
		{"whole nested object", map[string]any{"nested": map[string]any{"a": 1, "b": []any{"x", map[string]any{"c": nil}}}}, []int{0}},
		{"nested object is equality, not containment", map[string]any{"nested": map[string]any{"a": 1}}, []int{1}},
		{"nested object partial", map[string]any{"nested": map[string]any{"b": []any{"x"}}}, nil},
		{"empty list is not containment", map[string]any{"empty_list": []any{}}, []int{0}},
		{"typed list", map[string]any{"empty_list": []int{1}}, []int{1}},
		{"empty object is not containment", map[string]any{"empty_obj": map[string]any{}}, []int{0}},
		{"typed map", map[string]any{"empty_obj": map[string]int{"k": 1}}, []int{1}},
		{"large integer", map[string]any{"big": int64(1)<<53 + 1}, []int{0}},
		{"negative", map[string]any{"neg": -2}, []int{1}},
		{"negative float", map[string]any{"neg": -2.0}, []int{1}},
		{"extra run_id shows through an empty RunID only", map[string]any{"run_id": "extra-run"}, []int{2}},
		{"RunID wins over extra run_id", map[string]any{"run_id": "real-run"}, []int{3}},
		{"extra source is shadowed", map[string]any{"source": "shadowed"}, nil},
		{"extra step is shadowed", map[string]any{"step": 99}, nil},
		{"typed source and negative step", map[string]any{"source": checkpoint.SourceInput, "step": -1}, []int{4}},
		{"two non-string keys", map[string]any{"zero": 0, "flag": 1}, []int{2}},
		{"string and non-string keys", map[string]any{"source": "loop", "flag": false}, []int{1}},
		{"empty filter", map[string]any{}, []int{0, 1, 2, 3, 4}},
	}
	for _, c := range cases {
		var want []string
		var ref []string
		for i := len(ids) - 1; i >= 0; i-- {
			if slices.Contains(c.want, i) {
				want = append(want, ids[i])
			}
			if mds[i].Matches(c.filter) {
				ref = append(ref, ids[i])
			}
		}
		require.Equal(t, want, ref, "%s: the case agrees with Metadata.Matches", c.name)
		if want == nil {
			want = []string{}
		}
		require.Equal(t, want, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: c.filter}), c.name)
		if len(want) > 0 {
			require.Equal(t, want[:1], listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: c.filter, Limit: 1}), "%s, limit 1", c.name)
		}
	}
}

// testMetadataStringWithNUL: metadata holding U+0000 round-trips, or is
// refused by Put with an error naming the field and storing nothing, on a
// backend that documents the limit (PostgreSQL: jsonb cannot hold it).
func testMetadataStringWithNUL(t *testing.T, s checkpoint.Saver, h *Harness) {
	thread := newThreadID()
	md := checkpoint.Metadata{Source: checkpoint.SourceLoop, Extra: map[string]any{"text": "a\x00b", "k\x00": "v"}}
	req := step{blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}, md: md}.request(thread)
	if _, err := s.Put(context.Background(), req); err != nil {
		t.Logf("refused: %v", err)
		require.True(t, h.isLimit(err), "a refusal names the limit: %v", err)
		require.Contains(t, err.Error(), "metadata", "the error names the field")
		_, err := s.Get(context.Background(), checkpoint.Config{ThreadID: thread})
		require.ErrorIs(t, err, checkpoint.ErrNotFound, "a refused Put stores nothing")
		return
	}
	id := req.Checkpoint.ID
	require.JSONEq(t, mdJSON(t, md), mdJSON(t, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).Metadata))
	require.Equal(t, []string{id}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: map[string]any{"text": "a\x00b"}}))
}

// testMetadataNestedRoundTrips mirrors LangGraph conformance
// test_put_preserves_nested_metadata.
func testMetadataNestedRoundTrips(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	md := checkpoint.Metadata{Source: checkpoint.SourceInput, Step: 1, Parents: map[string]string{"": checkpoint.NewID()}, Nodes: []string{"b", "a", "b"},
		Extra: map[string]any{"user": map[string]any{
			"name":  "alice",
			"tags":  []any{"admin", "rag"},
			"prefs": map[string]any{"theme": "dark", "n": 3, "flag": true},
			"empty": map[string]any{}, "none": []any{}, "deep": map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{nil, 1.25, "é"}}}},
		}, "metrics": []any{map[string]any{"step": 1, "score": 0.95}, map[string]any{"step": 2, "score": 0.99}}}}
	id := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}, md: md})
	require.JSONEq(t, mdJSON(t, md), mdJSON(t, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).Metadata))
	require.JSONEq(t, mdJSON(t, md), mdJSON(t, collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})[0].Metadata))
	require.Equal(t, []string{id}, listIDs(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{Filter: map[string]any{"metrics": md.Extra["metrics"]}}))
}

// testMetadataReturnedIsTheCallers: "maps and slices [of what Get and List
// return] are the caller's": changing them, at any depth, changes nothing
// stored.
func testMetadataReturnedIsTheCallers(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	md := checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, Parents: map[string]string{"": "p"}, Nodes: []string{"a"},
		Extra: map[string]any{"nested": map[string]any{"k": "v"}, "list": []any{"x", map[string]any{"y": "z"}}}}
	id := mustPut(t, s, thread, step{blobs: map[string]checkpoint.Blob{"items": full("i1", `[1]`)}, md: md})
	mustPut(t, s, thread, step{parent: id, blobs: map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)}, md: md})
	cfg := checkpoint.Config{ThreadID: thread}
	require.NoError(t, s.PutWrites(context.Background(), mustGet(t, s, cfg).Config, "t", []checkpoint.PendingWrite{pending(0, "a", "1")}))
	want := mustGet(t, s, cfg)
	wantJSON := mdJSON(t, want.Metadata)
	wantValues := flatValues(want.Checkpoint.Values)

	mutate := func(tup *checkpoint.Tuple) {
		tup.Metadata.Extra["nested"].(map[string]any)["k"] = "mutated"
		l := tup.Metadata.Extra["list"].([]any)
		l[0] = "mutated"
		l[1].(map[string]any)["y"] = "mutated"
		tup.Metadata.Extra["added"] = true
		tup.Metadata.Nodes[0] = "mutated"
		tup.Metadata.Parents[""] = "mutated"
		tup.Checkpoint.Versions["items"] = "mutated"
		v := tup.Checkpoint.Values["items"]
		v.Deltas[0] = []byte("mutated") // the slice, not the bytes
		tup.Checkpoint.Values["other"] = checkpoint.Value{}
		tup.PendingWrites[0].Channel = "mutated"
	}
	mutate(mustGet(t, s, cfg))
	mutate(collect(t, s, cfg, checkpoint.ListOptions{Limit: 1})[0])
	got := mustGet(t, s, cfg)
	require.JSONEq(t, wantJSON, mdJSON(t, got.Metadata))
	require.Equal(t, wantValues, flatValues(got.Checkpoint.Values))
	require.Equal(t, map[string]string{"items": "i2"}, got.Checkpoint.Versions)
	require.Equal(t, []flatWrite{{"t", 0, "a", "1"}}, flatWrites(got.PendingWrites))
	require.Equal(t, []string{id}, listIDs(t, s, cfg, checkpoint.ListOptions{Filter: map[string]any{"nested": map[string]any{"k": "v"}}, Before: got.Checkpoint.ID}))
}
