package state_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// word decodes itself (as chat.Message does) and counts its calls.
type word struct{ S string }

func (w *word) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	w.S = strings.ToUpper(s)
	return nil
}

type lists struct {
	Plain []string
	Words []word
}

var (
	plainField = state.Append("plain", func(s *lists) *[]string { return &s.Plain })
	wordsField = state.Append("words", func(s *lists) *[]word { return &s.Words })
	listSchema = state.NewSchema[lists](plainField, wordsField)
)

// b64Codec is a codec whose bytes are not JSON (as an encrypting one's).
type b64Codec struct{}

func (b64Codec) Marshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	return []byte(base64.StdEncoding.EncodeToString(data)), err
}

func (b64Codec) Unmarshal(data []byte, v any) error {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

func encodeParts(t *testing.T, c state.Codec, parts ...any) [][]byte {
	out := make([][]byte, len(parts))
	for i, p := range parts {
		data, err := c.Marshal(p)
		require.NoError(t, err)
		out[i] = data
	}
	return out
}

// An append field's snapshot and deltas decode to the same value whether
// they are read in one pass (a JSON codec: one list, or element by
// element for elements that decode themselves) or one by one (a codec
// whose bytes are not JSON); and null or empty parts add nothing.
func TestAppendDeltasDecodeAlikeJoinedOrOneByOne(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]state.Codec{"json": jsonCodec{}, "not json": b64Codec{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cases := []struct {
				name  string
				parts []any
				plain []string
			}{
				{"snapshot and deltas", []any{[]string{"a", "b"}, []string{"c"}, []string{}, []string{"d, \"e\" [f]", "g"}}, []string{"a", "b", "c", "d, \"e\" [f]", "g"}},
				{"null snapshot", []any{[]string(nil), []string{"x"}, []string{"y"}}, []string{"x", "y"}},
				{"no deltas", []any{[]string{"only"}}, []string{"only"}},
			}
			for _, tc := range cases {
				parts := encodeParts(t, c, tc.parts...)
				var s lists
				require.NoError(t, listSchema.Decode(&s, 0, parts[0], parts[1:], c), tc.name)
				require.Equal(t, tc.plain, s.Plain, tc.name)
				require.NoError(t, listSchema.Decode(&s, 1, parts[0], parts[1:], c), tc.name)
				want := make([]word, len(tc.plain))
				for i, p := range tc.plain {
					want[i] = word{strings.ToUpper(p)}
				}
				if len(tc.plain) == 0 {
					want = nil
				}
				require.Equal(t, want, s.Words, tc.name)
			}
		})
	}
}

// A delta that does not decode is refused by its index, whichever way the
// deltas were read.
func TestABadAppendDeltaIsNamed(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`[1]`, `["a",]`, `["a"`, `{"a":1}`, `["a"]]`} {
		snap, _ := json.Marshal([]string{"s"})
		var s lists
		for i := range 2 {
			err := listSchema.Decode(&s, i, snap, [][]byte{[]byte(`["ok"]`), []byte(bad)}, jsonCodec{})
			require.Error(t, err, bad)
			require.Contains(t, err.Error(), "delta 1", bad)
		}
	}
}
