package checkpoint_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// An input checkpoint's __start__ value reads back as the very writes
// that were stored, byte for byte, whatever their values: JSON is stored
// as itself, anything else (and JSON a decoder would not give back the
// same) as before.
func TestStartWritesReadBackByteForByte(t *testing.T) {
	t.Parallel()
	const task = "task-1"
	cases := []struct {
		name  string
		ws    []checkpoint.PendingWrite
		pairs int // writes stored as [channel, value]
	}{
		{"a human message", []checkpoint.PendingWrite{{Channel: "messages", Value: []byte(`[{"type":"human","content":"hi"}]`)}}, 1},
		{"several fields", []checkpoint.PendingWrite{
			{Channel: "a", Value: []byte(`1`)},
			{Index: 1, Channel: "b", Value: []byte(`"x"`)},
			{Index: 2, Channel: "c", Value: []byte(`null`)},
		}, 3},
		{"space inside kept", []checkpoint.PendingWrite{{Channel: "m", Value: []byte("{ \"a\" :\n [1, 2] }")}}, 1},
		{"characters encoding/json would escape", []checkpoint.PendingWrite{{Channel: "m", Value: []byte(`"<a&b>\u00e9 é"`)}}, 1},
		{"a channel JSON escapes", []checkpoint.PendingWrite{{Channel: `we"ird<`, Value: []byte(`1`)}}, 1},
		{"space around", []checkpoint.PendingWrite{{Channel: "m", Value: []byte(" 1")}, {Index: 1, Channel: "n", Value: []byte("2\n")}}, 0},
		{"not JSON", []checkpoint.PendingWrite{{Channel: "m", Value: []byte{0, 1, 0xff}}}, 0},
		{"two values", []checkpoint.PendingWrite{{Channel: "m", Value: []byte(`1 2`)}}, 0},
		{"empty and nil", []checkpoint.PendingWrite{{Channel: "m", Value: []byte{}}, {Index: 1, Channel: "n"}}, 0},
		{"an index not its position", []checkpoint.PendingWrite{{Index: 3, Channel: "m", Value: []byte(`1`)}}, 0},
		{"mixed", []checkpoint.PendingWrite{
			{Channel: "m", Value: []byte{0xfe}},
			{Index: 1, Channel: "n", Value: []byte(`{"k":[true]}`)},
		}, 1},
		{"no writes", []checkpoint.PendingWrite{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := checkpoint.AppendStartWrites(nil, tc.ws)
			require.NoError(t, err)
			require.True(t, json.Valid(data), "%s", data)
			var elems []json.RawMessage
			require.NoError(t, json.Unmarshal(data, &elems))
			pairs := 0
			for _, e := range elems {
				if e[0] == '[' {
					pairs++
				}
			}
			assert.Equal(t, tc.pairs, pairs, "%s", data)

			got, err := checkpoint.StartWrites(data, task)
			require.NoError(t, err)
			want := make([]checkpoint.PendingWrite, len(tc.ws))
			for i, w := range tc.ws {
				w.TaskID = task
				want[i] = w
			}
			assert.Equal(t, want, got)
		})
	}
}

// A human message as an input costs its own bytes and a few more, not a
// third more in base64 inside an object.
func TestStartWritesStoreJSONAsItself(t *testing.T) {
	t.Parallel()
	msg := `[{"type":"human","content":"Question 50: what do the facts say?"}]`
	data, err := checkpoint.AppendStartWrites(nil, []checkpoint.PendingWrite{{Channel: "messages", Value: []byte(msg)}})
	require.NoError(t, err)
	assert.Equal(t, `[["messages",`+msg+`]]`, string(data))
}

// Input checkpoints written before the pairs hold encoding/json's form of
// the writes (what graph stored: json.Marshal of []PendingWrite, the
// values base64); they read back the same.
func TestStartWritesReadTheFormOfEarlierVersions(t *testing.T) {
	t.Parallel()
	// The bytes an earlier version stored for a chat turn's input.
	old := `[{"task_id":"","idx":0,"channel":"messages","value":"W3sidHlwZSI6Imh1bWFuIiwiY29udGVudCI6IlF1ZXN0aW9uIDUwOiB3aGF0IGRvIHRoZSBmYWN0cyBzYXk/In1d"},` +
		`{"task_id":"","idx":1,"channel":"n","value":"` + base64.StdEncoding.EncodeToString([]byte{0, 0xff}) + `"}]`
	got, err := checkpoint.StartWrites([]byte(old), "t")
	require.NoError(t, err)
	assert.Equal(t, []checkpoint.PendingWrite{
		{TaskID: "t", Channel: "messages", Value: []byte(`[{"type":"human","content":"Question 50: what do the facts say?"}]`)},
		{TaskID: "t", Index: 1, Channel: "n", Value: []byte{0, 0xff}},
	}, got)
}

func TestStartWritesRefusesWhatNoVersionWrote(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`{`, `{}`, `[1]`, `[["m"]]`, `[["m",1,2]]`, `[[1,2]]`, `[{"idx":"x"}]`} {
		_, err := checkpoint.StartWrites([]byte(bad), "t")
		assert.Error(t, err, bad)
	}
}

// Whatever a write holds, it reads back as it was stored.
func FuzzStartWritesReadBackByteForByte(f *testing.F) {
	f.Add("messages", []byte(`[{"type":"human","content":"hi"}]`), []byte(`1`))
	f.Add("m", []byte(" {\"a\":1}"), []byte{0xff})
	f.Add("<é>", []byte(`"\u00e9"`), []byte(`null`))
	f.Fuzz(func(t *testing.T, channel string, a, b []byte) {
		if !utf8.ValidString(channel) {
			t.Skip("channels are field names: valid UTF-8")
		}
		ws := []checkpoint.PendingWrite{{Channel: channel, Value: a}, {Index: 1, Channel: channel, Value: b}}
		data, err := checkpoint.AppendStartWrites(nil, ws)
		require.NoError(t, err)
		got, err := checkpoint.StartWrites(data, "t")
		require.NoError(t, err, "%s", data)
		require.Len(t, got, 2)
		for i := range ws {
			assert.Equal(t, channel, got[i].Channel)
			assert.Equal(t, i, got[i].Index)
			assert.Equal(t, string(ws[i].Value), string(got[i].Value), "%s", data)
		}
	})
}
