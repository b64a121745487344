package postgres

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// TestPlainMetadataIsItsOwnCanonicalForm: for the metadata Put takes as
// its canonical form without decoding it (plainMetadata), decoding and
// encoding it again gives the same bytes.
func TestPlainMetadataIsItsOwnCanonicalForm(t *testing.T) {
	t.Parallel()
	for _, md := range []checkpoint.Metadata{
		{},
		{Source: checkpoint.SourceLoop, Step: 3, RunID: "run-1", Nodes: []string{"a", "b"}},
		{Source: checkpoint.SourceInput, Step: -1, Parents: map[string]string{"": "p", "sub": "q"}},
		{Source: "lo\xffop", RunID: "é\u2028<&>"},
		{Source: checkpoint.SourceUpdate, Extra: map[string]any{"n": 1.0, "s": "x"}},
		{Source: checkpoint.SourceLoop, Nodes: []string{`"extra":`}},
	} {
		b, err := json.Marshal(md)
		require.NoError(t, err)
		var decoded checkpoint.Metadata
		require.NoError(t, json.Unmarshal(b, &decoded))
		want, err := json.Marshal(decoded)
		require.NoError(t, err)
		if plainMetadata(b) {
			require.Equal(t, string(b), string(want), "plain metadata %s is its own canonical form", b)
		}
	}
}
