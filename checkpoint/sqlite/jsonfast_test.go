package sqlite

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// TestHandWrittenJSONIsWhatJSONMarshalWrites: the checkpoint row's
// versions and metadata written by hand are byte for byte json.Marshal's,
// for the plain strings it writes them for and the escaped ones it hands
// to json.Marshal.
func TestHandWrittenJSONIsWhatJSONMarshalWrites(t *testing.T) {
	t.Parallel()
	versions := []map[string]string{
		nil, {}, {"a": "1"}, {"n": "019ada00-0000-7000-8000-000000000001", "__next__": "x", "items": "y.3d"},
		{"é": "1"}, {"a": `q"uote`}, {"<html>": "&"}, {"tab\t": "nl\n"}, {"a\\b": "\x7f"},
	}
	for _, v := range versions {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		if v == nil {
			want = []byte("{}")
		}
		got, err := encodeVersions(v)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "versions %v", v)
	}
	metadata := []checkpoint.Metadata{
		{},
		{Source: checkpoint.SourceLoop, Step: 3},
		{Source: checkpoint.SourceInput, Step: -1, RunID: "run-1", Nodes: []string{"a", "b"}},
		{Source: checkpoint.SourceLoop, Step: 7, Parents: map[string]string{"": "019ada00"}, Nodes: []string{}},
		{Source: checkpoint.SourceLoop, Parents: map[string]string{"a": "1", "b": "2"}},
		{Source: checkpoint.SourceUpdate, Extra: map[string]any{"user": "ann"}},
		{Source: "lo<op", RunID: `r"1`, Nodes: []string{"n\u2028"}},
		{Source: checkpoint.SourceLoop, Parents: map[string]string{"x&": "1"}},
		{Source: checkpoint.SourceLoop, Parents: map[string]string{}},
	}
	for _, md := range metadata {
		want, err := json.Marshal(md)
		require.NoError(t, err)
		got, err := encodeMetadata(md)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "metadata %+v", md)
	}
	// Both columns in one buffer are the same bytes, and the metadata's
	// size bound holds (no growth, which would be a second allocation).
	for _, v := range versions {
		for _, md := range metadata {
			wantV, err := encodeVersions(v)
			require.NoError(t, err)
			wantMD, err := encodeMetadata(md)
			require.NoError(t, err)
			gotV, gotMD, err := encodeColumns(v, nil, md, true)
			require.NoError(t, err)
			require.Equal(t, string(wantV), string(gotV))
			require.Equal(t, string(wantMD), string(gotMD))
			if n, ok := metadataSize(md); ok {
				require.LessOrEqual(t, len(gotMD), n, "metadata %+v", md)
			}
		}
	}
	long := checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1 << 62, RunID: "r", Parents: map[string]string{"p": "q"}, Nodes: []string{"a", "b", "c"}}
	n, _ := metadataSize(long)
	require.LessOrEqual(t, len(appendMetadata(nil, long)), n)
}

// TestRelativeVersionsReadBackWhole: a versions column relative to the
// checkpoint's id reads back as the versions it was written from, by hand
// and through encoding/json alike, whatever the versions look like.
func TestRelativeVersionsReadBackWhole(t *testing.T) {
	t.Parallel()
	id := "019ada00-0000-7000-8000-000000000002"
	cases := []map[string]string{
		nil,
		{"__next__": id, "items": id + ".3d", "name": "019ada00-0000-7000-8000-000000000001"},
		{"a": "=", "b": "==", "c": "=x", "d": id + "x", "e": id + ".", "f": ""},
		{"<escaped>": id, "b": "=" + id, "c": "é"},
	}
	for _, v := range cases {
		for _, owner := range []string{id, ""} {
			b, _, err := encodeColumns(v, &owner, checkpoint.Metadata{}, false)
			require.NoError(t, err)
			got, err := decodeVersionsIn(b, nil, owner, true)
			require.NoError(t, err)
			if v == nil {
				v = map[string]string{}
			}
			require.Equal(t, v, got, "%s relative to %q", b, owner)
			byJSON, err := decodeVersionsJSON(b, owner, true)
			require.NoError(t, err)
			require.Equal(t, v, byJSON, "%s through encoding/json", b)
			var in interner
			if hand, ok := readVersions(b, &in, owner, true); ok {
				require.Equal(t, v, hand, "%s by hand", b)
			}
		}
	}
}
