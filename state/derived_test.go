package state_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/state"
)

// Rich has a field of every kind FromStruct derives.
type Rich struct {
	Topic   string
	Items   []string       `state:"append"`
	Scores  map[string]int `state:"merge"`
	Calls   int            `state:"sum,name=n_calls"`
	Tags    []string       `state:"reducer=test.dedupe"`
	Longest string         `state:"reducer=test.longest"`
	Note    string         `state:"-"`
	scratch int
}

func longest(old, update string) string {
	if len(update) > len(old) {
		return update
	}
	return old
}

func init() {
	state.RegisterAppendReducer("test.dedupe", dedupe)
	state.RegisterReducer("test.longest", longest)
}

// richByHand is Rich's schema declared field by field.
var richByHand = state.NewSchema(
	state.Value("topic", func(r *Rich) *string { return &r.Topic }),
	state.Append("items", func(r *Rich) *[]string { return &r.Items }),
	state.Merge("scores", func(r *Rich) *map[string]int { return &r.Scores }),
	state.Sum("n_calls", func(r *Rich) *int { return &r.Calls }),
	state.AppendReduce("tags", func(r *Rich) *[]string { return &r.Tags }, dedupe),
	state.Reduce("longest", func(r *Rich) *string { return &r.Longest }, longest),
)

func TestFromStructDeclaresTheFieldsAsByHand(t *testing.T) {
	t.Parallel()
	sc := state.FromStruct[Rich]()
	require.NoError(t, sc.Err())
	require.Equal(t, richByHand.Len(), sc.Len())
	for i := range sc.Len() {
		assert.Equal(t, richByHand.Name(i), sc.Name(i))
		assert.Equal(t, richByHand.Kind(i), sc.Kind(i), sc.Name(i))
	}
	_ = Rich{}.scratch
}

// randomEdit changes r as a node might.
func randomEdit(rng *rand.Rand, step int) func(*Rich) {
	return func(r *Rich) {
		s := fmt.Sprint(step)
		if rng.IntN(2) == 0 {
			r.Topic = "t" + fmt.Sprint(rng.IntN(3))
		}
		switch rng.IntN(4) {
		case 0:
			r.Items = append(r.Items, "i"+s)
		case 1:
			if len(r.Items) > 0 {
				r.Items[0] = "changed" + s // an overwrite
			}
		}
		switch rng.IntN(4) {
		case 0:
			if r.Scores == nil {
				r.Scores = map[string]int{}
			}
			r.Scores[fmt.Sprint(rng.IntN(4))] = step
		case 1:
			for k := range r.Scores {
				delete(r.Scores, k) // an overwrite
				break
			}
		}
		r.Calls += rng.IntN(3)
		switch rng.IntN(3) {
		case 0:
			r.Tags = append(r.Tags, fmt.Sprint("g", rng.IntN(5)))
		case 1:
			r.Tags = append(r.Tags, fmt.Sprint("-g", rng.IntN(5))) // dedupe removes it: a rewrite
		}
		if rng.IntN(3) == 0 {
			r.Longest = s + s + s
		}
	}
}

// The derived schema makes, applies, encodes and decodes exactly what the
// hand-written one does, and each reads what the other stored.
func TestFromStructBehavesAsTheHandWrittenSchema(t *testing.T) {
	t.Parallel()
	derived := state.FromStruct[Rich]()
	require.NoError(t, derived.Err())
	c := jsonCodec{}
	rng := rand.New(rand.NewPCG(1, 2))
	var byHand, byTags Rich
	handAp, tagAp := richByHand.NewApplier(), derived.NewApplier()
	seen := map[string]int{} // what kinds of writes the run made
	for step := range 200 {
		edit := randomEdit(rng, step)
		target := applyEdit(byHand, edit)
		uh := richByHand.Edit(byHand, func(r *Rich) { *r = target })
		ud := derived.Edit(byTags, func(r *Rich) { *r = target })
		require.Equal(t, len(uh.Writes), len(ud.Writes), "step %d", step)
		for i := range uh.Writes {
			wh, wd := uh.Writes[i], ud.Writes[i]
			require.Equal(t, wh.Field(), wd.Field())
			require.Equal(t, wh.IsOverwrite(), wd.IsOverwrite(), wh.Field())
			require.Equal(t, wh.Value(), wd.Value(), wh.Field())
			seen[fmt.Sprintf("%s %v", wh.Field(), wh.IsOverwrite())]++
			// Each decodes what the other encoded.
			ch, data, err := richByHand.EncodeWrite(wh, c)
			require.NoError(t, err)
			ch2, data2, err := derived.EncodeWrite(wd, c)
			require.NoError(t, err)
			require.Equal(t, ch, ch2)
			require.Equal(t, string(data), string(data2))
			back, err := derived.DecodeWrite(ch, data, c)
			require.NoError(t, err)
			ud.Writes[i] = back
		}
		require.NoError(t, handAp.Add("n", uh.Writes))
		require.NoError(t, tagAp.Add("n", ud.Writes))
		_, err := handAp.Apply(&byHand, step%2 == 0)
		require.NoError(t, err)
		_, err = tagAp.Apply(&byTags, step%2 == 0)
		require.NoError(t, err)
		require.Equal(t, handAp.Rewrites(), tagAp.Rewrites(), "step %d", step)
		if len(tagAp.Rewrites()) > 0 {
			seen["rewrite"]++
		}
		require.Equal(t, byHand, byTags, "step %d", step)
	}
	for _, k := range []string{"topic false", "items false", "items true", "scores false", "scores true", "n_calls false", "tags false", "longest false", "rewrite"} {
		assert.Positive(t, seen[k], "the run made no write %q: %v", k, seen)
	}
	// Stored by one, read by the other, as a snapshot and deltas.
	for i := range derived.Len() {
		snap, err := richByHand.Encode(&byHand, i, c)
		require.NoError(t, err)
		snap2, err := derived.Encode(&byTags, i, c)
		require.NoError(t, err)
		require.Equal(t, string(snap), string(snap2))
		var back Rich
		if derived.Kind(i) == state.KindAppend && derived.FieldLen(&byTags, i) > 1 {
			var prefix Rich
			require.True(t, richByHand.CopyPrefix(&prefix, &byHand, i, 1))
			head, err := richByHand.Encode(&prefix, i, c)
			require.NoError(t, err)
			tail, err := derived.EncodeTail(&byTags, i, 1, c)
			require.NoError(t, err)
			require.NoError(t, derived.Decode(&back, i, head, [][]byte{tail}, c))
		} else {
			require.NoError(t, derived.Decode(&back, i, snap, nil, c))
		}
		assert.True(t, derived.Equal(&back, &byHand, i), derived.Name(i))
	}
	dh, dd := richByHand.Diff(&Rich{}, &byHand), derived.Diff(&Rich{}, &byTags)
	require.Len(t, dd, len(dh))
	for i := range dh {
		assert.Equal(t, dh[i].Field(), dd[i].Field())
		assert.Equal(t, dh[i].Value(), dd[i].Value())
		assert.Equal(t, dh[i].IsOverwrite(), dd[i].IsOverwrite())
	}
}

// applyEdit returns what edit makes of a private copy of r.
func applyEdit(r Rich, edit func(*Rich)) Rich {
	r.Items = slices.Clone(r.Items)
	r.Tags = slices.Clone(r.Tags)
	if r.Scores != nil {
		m := make(map[string]int, len(r.Scores))
		for k, v := range r.Scores {
			m[k] = v
		}
		r.Scores = m
	}
	edit(&r)
	return r
}
