package state_test

import (
	"math"
	"testing"

	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
)

type diffed struct {
	S  string
	F  float64
	L  []string
	M  map[string]int
	P  *int
	AL []string
}

// Diff's cheap comparisons agree with reflect.DeepEqual: nil and empty
// are different values, same memory is equal, NaN is unequal to itself.
func TestDiffSeesWhatDeepEqualSees(t *testing.T) {
	t.Parallel()
	fs := state.Value("s", func(d *diffed) *string { return &d.S })
	ff := state.Value("f", func(d *diffed) *float64 { return &d.F })
	fl := state.Value("l", func(d *diffed) *[]string { return &d.L })
	fm := state.Value("m", func(d *diffed) *map[string]int { return &d.M })
	fp := state.Value("p", func(d *diffed) **int { return &d.P })
	fa := state.Append("al", func(d *diffed) *[]string { return &d.AL })
	sc := state.NewSchema(fs, ff, fl, fm, fp, fa)
	shared := []string{"a", "b"}
	m := map[string]int{"x": 1}
	one, other := 1, 1
	cases := []struct {
		name     string
		from, to diffed
		fields   []string
	}{
		{"equal scalars", diffed{S: "a", F: 1}, diffed{S: "a", F: 1}, nil},
		{"changed scalars", diffed{S: "a", F: 1}, diffed{S: "b", F: 2}, []string{"s", "f"}},
		{"NaN", diffed{F: math.NaN()}, diffed{F: math.NaN()}, []string{"f"}},
		{"nil and empty slice", diffed{L: nil}, diffed{L: []string{}}, []string{"l"}},
		{"same slice memory", diffed{L: shared}, diffed{L: shared}, nil},
		{"equal slices apart", diffed{L: []string{"a"}}, diffed{L: []string{"a"}}, nil},
		{"nil and empty map", diffed{M: nil}, diffed{M: map[string]int{}}, []string{"m"}},
		{"same map", diffed{M: m}, diffed{M: m}, nil},
		{"equal maps apart", diffed{M: map[string]int{"x": 1}}, diffed{M: map[string]int{"x": 1}}, nil},
		{"pointers to equal values", diffed{P: &one}, diffed{P: &other}, nil},
		{"append in the same memory", diffed{AL: shared[:1]}, diffed{AL: shared}, []string{"al"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, w := range sc.Diff(&c.from, &c.to) {
				got = append(got, w.Field())
			}
			assert.Equal(t, c.fields, got)
		})
	}
	d := sc.Diff(&diffed{AL: shared[:1]}, &diffed{AL: shared})
	assert.Equal(t, []string{"b"}, d[0].Value(), "only what was appended")
	assert.False(t, d[0].IsOverwrite())
}
