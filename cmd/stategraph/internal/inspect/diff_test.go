package inspect

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	a := map[string]json.RawMessage{
		"same":      raw(`{"x":1,"y":[1,2]}`),
		"gone":      raw(`1`),
		"scalar":    raw(`"a"`),
		"grown":     raw(`[1,{"k":2}]`),
		"rewritten": raw(`[1,2]`),
		"shrunk":    raw(`[1,2]`),
		"big":       raw(`9007199254740993`),
	}
	b := map[string]json.RawMessage{
		"same":      raw(`{ "y" : [1, 2], "x": 1.0e0 }`),
		"new":       raw(`null`),
		"scalar":    raw(`"b"`),
		"grown":     raw(`[1,{"k":2},3,4]`),
		"rewritten": raw(`[9,2,3]`),
		"shrunk":    raw(`[1]`),
		"big":       raw(`9007199254740992`),
	}
	got := Diff(a, b)
	kinds := map[string]string{}
	for _, c := range got {
		kinds[c.Field] = c.Kind
		if c.Kind == Appended {
			assert.Equal(t, 2, c.Appended)
		}
	}
	assert.Equal(t, map[string]string{
		"gone": Removed, "new": Added, "scalar": Changed, "grown": Appended,
		"rewritten": Changed, "shrunk": Changed, "big": Changed,
	}, kinds)
	// Sorted by field.
	assert.Equal(t, "big", got[0].Field)
	assert.Empty(t, Diff(a, a))
}

func TestDiffShowsObjectsWithSortedKeys(t *testing.T) {
	t.Parallel()
	tup := func(snapshot string) *checkpoint.Tuple {
		return &checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: map[string]checkpoint.Value{
			"attrs": {Snapshot: []byte(snapshot)},
		}}}
	}
	a, err := Values(tup(`{"owner":"ann","due":"mon"}`))
	require.NoError(t, err)
	b, err := Values(tup(`{"due":"tue","owner":"ann"}`))
	require.NoError(t, err)
	got := Diff(a, b)
	require.Len(t, got, 1)
	assert.Equal(t, `{"due":"mon","owner":"ann"}`, string(got[0].Before))
	assert.Equal(t, `{"due":"tue","owner":"ann"}`, string(got[0].After))

	reordered, err := Values(tup(`{"due":"mon","owner":"ann"}`))
	require.NoError(t, err)
	assert.Empty(t, Diff(a, reordered), "the order of keys is no change")
}
