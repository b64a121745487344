package postgres

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// TestMetadataDecodesAsEncodingJSONDoes: whatever the metadata column
// holds, decodeMetadata gives what json.Unmarshal gives (or fails where
// it fails), and the canonical form json.Marshal writes for it.
func TestMetadataDecodesAsEncodingJSONDoes(t *testing.T) {
	t.Parallel()
	for _, col := range []string{
		`{"step": 2000, "nodes": ["route"], "run_id": "r-1", "source": "loop"}`,
		`{"step": -1, "source": "input"}`,
		`{"step": 3, "nodes": ["a", "b"], "parents": {"": "p", "sub": "q"}, "source": "loop"}`,
		`{"step": 1, "extra": {"k": 1.0, "s": "x"}, "source": "update"}`,
		`{"step": 1, "nodes": [], "source": "loop"}`,
		`{"step": 1, "parents": {}, "source": "loop"}`,
		`{"step": 1, "nodes": null, "source": null}`,
		`{"step": 1.5, "source": "loop"}`,
		`{"step": 99999999999999999999, "source": "loop"}`,
		`{"Step": 4, "SOURCE": "loop"}`,
		`{"step": 1, "source": "a\"b<c>"}`,
		`{"step": 1, "source": "é", "run_id": "\u00e9"}`,
		"{\"step\": 1, \"source\": \"\xff\"}",
		`{"step": 1, "source": "loop", "run_id": "x\ty"}`,
		`{}`,
		`[]`,
		`null`,
		`{"step": 1,}`,
	} {
		var want checkpoint.Metadata
		wantErr := json.Unmarshal([]byte(col), &want)
		if col[0] != '{' { // null, [] and the like decode, but are not metadata
			wantErr = errors.New("not a JSON object")
		}
		got, canon, err := decodeMetadata([]byte(col), &interner{}, nil)
		if wantErr != nil {
			require.Error(t, err, col)
			continue
		}
		require.NoError(t, err, col)
		require.Equal(t, want, got, col)
		wantCanon, err := json.Marshal(want)
		require.NoError(t, err)
		require.Equal(t, string(wantCanon), string(canon), col)
	}
}

// TestVersionsDecodeAsEncodingJSONDoes: decoding a run of versions
// columns, each after the one before as a page does, gives what
// json.Unmarshal gives, or fails where it fails.
func TestVersionsDecodeAsEncodingJSONDoes(t *testing.T) {
	t.Parallel()
	d := versionsDecoder{in: &interner{}}
	for _, col := range []string{
		`{"items": "c1.1d", "__next__": "c1"}`,
		`{"items": "c1.1d", "__next__": "c2"}`,
		`{"items": "c3.2d", "__next__": "c3"}`,
		`{"a": "1", "items": "c3.2d"}`,
		`{}`,
		`{"a": "x\"y"}`,
		`{"a": "\u00e9"}`,
		`{"é": ""}`,
		`{"a": 1}`,
		`{"a": null}`,
		`null`,
		`[]`,
		"{\"a\": \"\xff\"}",
	} {
		var want map[string]string
		wantErr := json.Unmarshal([]byte(col), &want)
		got, err := d.decode([]byte(col), "c3")
		if wantErr != nil {
			require.Error(t, err, col)
			continue
		}
		require.NoError(t, err, col)
		require.Equal(t, want, got, col)
	}
}
