package state_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tagSet struct{ Tags []string }

// dedupe appends the tagSet it has not seen; "-x" removes x (a rewrite).
func dedupe(old, update []string) ([]string, bool) {
	out := slices.Clone(old)
	appended := true
	for _, t := range update {
		if len(t) > 1 && t[0] == '-' {
			if i := slices.Index(out, t[1:]); i >= 0 {
				out = slices.Delete(out, i, i+1)
				appended = appended && i >= len(old)
			}
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, appended
}

var tagsField = state.AppendReduce("tags", func(s *tagSet) *[]string { return &s.Tags }, dedupe)

func TestAppendReduceReportsRewritesAndStoresLikeAppend(t *testing.T) {
	t.Parallel()
	sc := state.NewSchema[tagSet](tagsField)
	assert.Equal(t, state.KindAppend, tagsField.Kind())
	ap := sc.NewApplier()
	var s tagSet
	for _, tc := range []struct {
		write   []string
		want    []string
		rewrote bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, false},
		{[]string{"b", "c"}, []string{"a", "b", "c"}, false},
		{[]string{"d", "-d"}, []string{"a", "b", "c"}, false},
		{[]string{"-a"}, []string{"b", "c"}, true},
	} {
		require.NoError(t, ap.Add("n", []state.Write[tagSet]{tagsField.Set(tc.write)}))
		_, err := ap.Apply(&s, false)
		require.NoError(t, err)
		assert.Equal(t, tc.want, s.Tags)
		if tc.rewrote {
			assert.Equal(t, []int{0}, ap.Rewrites())
		} else {
			assert.Empty(t, ap.Rewrites())
		}
	}

	// A stored value is a snapshot and deltas of appended elements: they
	// are appended as they are, not put through the reducer again.
	var back tagSet
	snap, _ := json.Marshal([]string{"x"})
	d1, _ := json.Marshal([]string{"x", "-x"}) // a tail that holds what dedupe would drop
	require.NoError(t, sc.Decode(&back, 0, snap, [][]byte{d1}, jsonCodec{}))
	assert.Equal(t, []string{"x", "x", "-x"}, back.Tags)
}

// A write to an AppendReduce field decoded from JSON may be one element:
// it is a list of one (LangGraph's add_messages takes a single message).
// A plain Append field still wants a list.
func TestAppendReduceTakesOneElementForAListOfOne(t *testing.T) {
	t.Parallel()
	type both struct{ Tags, Plain []string }
	tags := state.AppendReduce("tags", func(s *both) *[]string { return &s.Tags }, dedupe)
	plain := state.Append("plain", func(s *both) *[]string { return &s.Plain })
	sc := state.NewSchema[both](tags, plain)
	for in, want := range map[string][]string{`"a"`: {"a"}, ` ["a","b"]`: {"a", "b"}} {
		w, err := sc.DecodeWrite("tags", []byte(in), jsonCodec{})
		require.NoError(t, err, in)
		ap := sc.NewApplier()
		require.NoError(t, ap.Add("n", []state.Write[both]{w}))
		var s both
		_, err = ap.Apply(&s, false)
		require.NoError(t, err)
		assert.Equal(t, want, s.Tags, in)
	}
	_, err := sc.DecodeWrite("tags", []byte(`7`), jsonCodec{})
	require.ErrorContains(t, err, `field "tags"`)
	_, err = sc.DecodeWrite("plain", []byte(`"a"`), jsonCodec{})
	require.Error(t, err)
}
