package sqlite

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// FuzzDecode feeds arbitrary bytes to what List and Get decode from rows:
// the versions and metadata columns. Decoding never panics, and whatever
// decodes survives a round trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":"1","b":"2"}`, `null`, `[]`, `{"a":1}`, ``, `{`, "\x00\xff",
		`{"source":"loop","step":3,"run_id":"r","nodes":["a"],"parents":{"":"x"},"extra":{"k":[1,{"z":null}]}}`,
		`{"step":"three"}`, `{"step":1e400}`, `{"extra":{"k":"\ud800"}}`,
		`{"source":"loop","step":-3,"parents":{"":"x"},"run_id":"r","nodes":["a","b"]}`,
		`{"source":"loop","step":3,"nodes":[]}`, `{"source":"loop","step":03}`, `{"a":"1","a":"2"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The hand-written readers agree with encoding/json on what they
		// accept.
		var in interner
		if v, ok := readVersions(b, &in, "", false); ok {
			var want map[string]string
			require.NoError(t, json.Unmarshal(b, &want), "%q", b)
			require.Equal(t, want, v, "%q", b)
		}
		if md, ok := readMetadata(b, &in); ok {
			var want checkpoint.Metadata
			require.NoError(t, json.Unmarshal(b, &want), "%q", b)
			require.Equal(t, want, md, "%q", b)
		}
		if v, err := decodeVersions(b); err == nil {
			enc, err := encodeVersions(v)
			require.NoError(t, err)
			again, err := decodeVersions(enc)
			require.NoError(t, err)
			require.Equal(t, v, again)
		}
		if md, err := decodeMetadata(b); err == nil {
			enc, err := json.Marshal(md)
			if err != nil {
				return // e.g. an Extra number out of float64 range
			}
			again, err := decodeMetadata(enc)
			require.NoError(t, err)
			require.Equal(t, md.Source, again.Source)
			require.Equal(t, md.Step, again.Step)
			require.Equal(t, md.RunID, again.RunID)
			_ = md.Matches(map[string]any{"step": 1, "k": "v"})
		}
	})
}

// TestInlineSizeIsWhatAppendInlineWrites: chooseInline allocates the
// column once, of the size inlineSize says.
func TestInlineSizeIsWhatAppendInlineWrites(t *testing.T) {
	id := "019ada00-0000-7000-8000-000000000001"
	long := string(make([]byte, 300))
	for _, c := range []inlineBlob{
		{channel: "n", version: id, blob: checkpoint.Blob{Data: []byte("1")}},
		{channel: long[:130], version: id + "." + long[:200], blob: checkpoint.Blob{Data: []byte(long), Delta: true, Base: long[:129]}},
		{channel: "", version: id, blob: checkpoint.Blob{}},
	} {
		if got, want := len(appendInline(nil, id, c)), inlineSize(id, c); got != want {
			t.Errorf("channel of %d bytes: appendInline wrote %d bytes, inlineSize says %d", len(c.channel), got, want)
		}
	}
}

// FuzzInline feeds arbitrary bytes to the decoder of the inline column:
// it never panics, and a column appendInline wrote decodes to its blobs.
func FuzzInline(f *testing.F) {
	id := "019ada00-0000-7000-8000-000000000001"
	// The format holds deltas too (a column chooseInline writes has
	// none; see inlineCandidate).
	col := []byte{inlineFormat}
	for _, c := range []inlineBlob{
		{channel: "a", version: id, blob: checkpoint.Blob{Version: id, Data: []byte("1")}},
		{channel: "b", version: id + ".2d", blob: checkpoint.Blob{Version: id + ".2d", Data: []byte(`["x"]`), Delta: true, Base: "old.1s"}},
		{channel: "c", version: id, blob: checkpoint.Blob{Version: id}},
	} {
		col = appendInline(col, id, c)
	}
	f.Add(col)
	f.Add([]byte{inlineFormat, 0x80})
	f.Add([]byte{inlineFormat, 1, 'a', 0, 9})
	got := map[string]checkpoint.Blob{}
	require.NoError(f, eachInline(col, id, func(ch, v string, delta bool, base string, data []byte) {
		got[ch] = checkpoint.Blob{Version: v, Data: data, Delta: delta, Base: base}
	}))
	require.Equal(f, map[string]checkpoint.Blob{
		"a": {Version: id, Data: []byte("1")},
		"b": {Version: id + ".2d", Data: []byte(`["x"]`), Delta: true, Base: "old.1s"},
		"c": {Version: id},
	}, got)
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = eachInline(b, id, func(string, string, bool, string, []byte) {})
	})
}
