package sqlite

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode feeds arbitrary bytes to what List and Get decode from rows:
// the versions and metadata columns. Decoding never panics, and whatever
// decodes survives a round trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":"1","b":"2"}`, `null`, `[]`, `{"a":1}`, ``, `{`, "\x00\xff",
		`{"source":"loop","step":3,"run_id":"r","nodes":["a"],"parents":{"":"x"},"extra":{"k":[1,{"z":null}]}}`,
		`{"step":"three"}`, `{"step":1e400}`, `{"extra":{"k":"\ud800"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
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
