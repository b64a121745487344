package inspect

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestValuesJoinSnapshotAndDeltas(t *testing.T) {
	t.Parallel()
	tup := &checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{
		"plain":                {Snapshot: []byte(` { "a" : 1 } `)},
		"log":                  {Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b","c"]`), []byte(`[{"d":1}]`)}},
		"fromEmpty":            {Deltas: [][]byte{[]byte(`[1]`), []byte(`[2]`)}},
		"emptyDelta":           {Snapshot: []byte(`[]`), Deltas: [][]byte{[]byte(`[]`)}},
		"opaque":               {Snapshot: []byte{0x1f, 0x8b, 0x00}},
		checkpoint.NextChannel: {Snapshot: []byte(`{"nodes":["x"]}`)},
	}}}
	got, err := Values(tup)
	require.NoError(t, err)
	want := map[string]string{
		"plain":      `{"a":1}`,
		"log":        `["a","b","c",{"d":1}]`,
		"fromEmpty":  `[1,2]`,
		"emptyDelta": `[]`,
		"opaque":     `{"base64":"H4sA"}`,
	}
	require.Len(t, got, len(want))
	for k, v := range want {
		assert.JSONEq(t, v, string(got[k]), k)
	}
	assert.Equal(t, []string{"emptyDelta", "fromEmpty", "log", "opaque", "plain"}, Fields(got))
}

func TestValuesNameTheBrokenField(t *testing.T) {
	t.Parallel()
	tup := &checkpoint.Tuple{
		Config: checkpoint.Config{ThreadID: "t", CheckpointID: "c1"},
		Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{
			"log": {Snapshot: []byte(`{"not":"an array"}`), Deltas: [][]byte{[]byte(`[1]`)}},
		}},
	}
	_, err := Values(tup)
	require.ErrorContains(t, err, `checkpoint "c1" field "log": snapshot of an append field is not a JSON array`)
}

func TestScheduleWithSendsAndJoins(t *testing.T) {
	t.Parallel()
	arg, err := json.Marshal(map[string][]byte{"topic": []byte(`"maps"`)})
	require.NoError(t, err)
	sched := `{"nodes":["b"],"sends":[{"node":"w","arg":` + string(arg) + `}],"joins":{"a,b>c":["a"]}}`
	tup := &checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{checkpoint.NextChannel: {Snapshot: []byte(sched)}}}}
	s, err := ParseSchedule(tup)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "w"}, s.Next())
	assert.JSONEq(t, `"maps"`, string(s.Sends[0].Arg["topic"]))
	assert.Equal(t, map[string][]string{"a,b>c": {"a"}}, s.Joins)
	assert.False(t, s.Done())

	done, err := ParseSchedule(&checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{checkpoint.NextChannel: {Snapshot: []byte(`{}`)}}}})
	require.NoError(t, err)
	assert.True(t, done.Done())

	_, err = ParseSchedule(&checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{checkpoint.NextChannel: {Snapshot: []byte(`[`)}}}})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
}

func TestValuesSortTheKeysOfEveryObject(t *testing.T) {
	t.Parallel()
	tup := &checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{
		"attrs": {Snapshot: []byte(`{"zeta": {"y": 1, "x": [ {"b": 2, "a": 1} ]}, "alpha": "<&>", "mid": 1.50}`)},
		"log":   {Snapshot: []byte(`[{"b":1,"a":2}]`), Deltas: [][]byte{[]byte(`[{"d":9007199254740993,"c":1e2}]`)}},
	}}}
	got, err := Values(tup)
	require.NoError(t, err)
	// Byte for byte: the keys sorted at every depth, numbers and strings
	// as they were written.
	assert.Equal(t, `{"alpha":"<&>","mid":1.50,"zeta":{"x":[{"a":1,"b":2}],"y":1}}`, string(got["attrs"]))
	assert.Equal(t, `[{"a":2,"b":1},{"c":1e2,"d":9007199254740993}]`, string(got["log"]))
}
