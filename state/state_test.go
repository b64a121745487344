package state_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

type doc struct {
	Title string
	Tags  []string
	Meta  map[string]int
	Count int
	Best  int
}

var (
	title = state.Value("title", func(d *doc) *string { return &d.Title })
	tags  = state.Append("tags", func(d *doc) *[]string { return &d.Tags })
	meta  = state.Merge("meta", func(d *doc) *map[string]int { return &d.Meta })
	count = state.Sum("count", func(d *doc) *int { return &d.Count })
	best  = state.Reduce("best", func(d *doc) *int { return &d.Best }, func(old, u int) int { return max(old, u) })

	schema = state.NewSchema(title, tags, meta, count, best)
)

type batch struct {
	writer string
	writes []state.Write[doc]
}

func TestApplyReducers(t *testing.T) {
	t.Parallel()
	start := doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}
	cases := []struct {
		name    string
		batches []batch
		want    doc
		errHas  []string
	}{
		{"last value", []batch{{"n1", []state.Write[doc]{title.Set("b")}}}, doc{Title: "b", Tags: []string{"x"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}, nil},
		{"zero value is writable", []batch{{"n1", []state.Write[doc]{title.Set(""), count.Overwrite(0), tags.Overwrite(nil)}}}, doc{Meta: map[string]int{"k": 1}, Best: 5}, nil},
		{"append in writer order", []batch{{"a", []state.Write[doc]{tags.Set([]string{"y"})}}, {"b", []state.Write[doc]{tags.Set([]string{"z", "w"})}}}, doc{Title: "a", Tags: []string{"x", "y", "z", "w"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}, nil},
		{"merge later wins", []batch{{"a", []state.Write[doc]{meta.Set(map[string]int{"k": 2, "j": 3})}}}, doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"k": 2, "j": 3}, Count: 2, Best: 5}, nil},
		{"sum", []batch{{"a", []state.Write[doc]{count.Set(3)}}, {"b", []state.Write[doc]{count.Set(4)}}}, doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"k": 1}, Count: 9, Best: 5}, nil},
		{"custom", []batch{{"a", []state.Write[doc]{best.Set(3)}}, {"b", []state.Write[doc]{best.Set(9)}}}, doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 9}, nil},
		{"overwrite wins over other writes", []batch{{"a", []state.Write[doc]{tags.Set([]string{"y"})}}, {"b", []state.Write[doc]{tags.Overwrite([]string{"only"})}}}, doc{Title: "a", Tags: []string{"only"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}, nil},
		{"two last-value writes", []batch{{"left", []state.Write[doc]{title.Set("l")}}, {"right", []state.Write[doc]{title.Set("r")}}}, doc{}, []string{`"title"`, `"left" and "right"`}},
		{"two overwrites", []batch{{"a", []state.Write[doc]{count.Overwrite(1)}}, {"b", []state.Write[doc]{count.Overwrite(2)}}}, doc{}, []string{`"count"`, "overwrites"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := start
			s.Tags = append([]string(nil), start.Tags...)
			a := schema.NewApplier()
			for _, b := range c.batches {
				require.NoError(t, a.Add(b.writer, b.writes))
			}
			_, err := a.Apply(&s, false)
			if c.errHas != nil {
				require.ErrorIs(t, err, state.ErrInvalidUpdate)
				for _, h := range c.errHas {
					require.Contains(t, err.Error(), h)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, s)
		})
	}
}

func TestApplyReportsTouchedFieldsInSchemaOrder(t *testing.T) {
	t.Parallel()
	a := schema.NewApplier()
	require.NoError(t, a.Add("n", []state.Write[doc]{best.Set(1), title.Set("t"), count.Set(1)}))
	var s doc
	touched, err := a.Apply(&s, false)
	require.NoError(t, err)
	require.Equal(t, []int{0, 3, 4}, touched)
	touched, err = a.Apply(&s, false)
	require.NoError(t, err)
	require.Empty(t, touched)
}

func TestPrivateApplyDoesNotShareBackingArray(t *testing.T) {
	t.Parallel()
	shared := make([]string, 1, 10)
	shared[0] = "x"
	s1 := doc{Tags: shared}
	s2 := doc{Tags: shared}
	a := schema.NewApplier()
	require.NoError(t, a.Add("one", []state.Write[doc]{tags.Set([]string{"one"})}))
	_, err := a.Apply(&s1, true)
	require.NoError(t, err)
	require.NoError(t, a.Add("two", []state.Write[doc]{tags.Set([]string{"two"})}))
	_, err = a.Apply(&s2, true)
	require.NoError(t, err)
	require.Equal(t, []string{"x", "one"}, s1.Tags)
	require.Equal(t, []string{"x", "two"}, s2.Tags)
}

func TestUnknownFieldNamesNodeAndField(t *testing.T) {
	t.Parallel()
	other := state.Value("other", func(d *doc) *int { return &d.Best })
	a := schema.NewApplier()
	err := a.Add("writer", []state.Write[doc]{other.Set(1)})
	require.ErrorIs(t, err, state.ErrInvalidUpdate)
	require.ErrorContains(t, err, `node "writer" wrote field "other"`)
	err = a.Add("writer", []state.Write[doc]{{}})
	require.ErrorContains(t, err, "zero Write")
}

func TestSchemaErrors(t *testing.T) {
	t.Parallel()
	dup := state.Value("title", func(d *doc) *string { return &d.Title })
	bad := state.Value("__x", func(d *doc) *int { return &d.Count })
	sc := state.NewSchema(title, dup, bad, nil)
	err := sc.Err()
	require.Error(t, err)
	require.ErrorContains(t, err, `"title" is declared twice`)
	require.ErrorContains(t, err, `"__x" is invalid`)
	require.ErrorContains(t, err, "field 3 is nil")
	require.NoError(t, schema.Err())
}

func TestWriteRoundTrip(t *testing.T) {
	t.Parallel()
	codec := jsonCodec{}
	for _, w := range []state.Write[doc]{title.Set(""), tags.Set([]string{"a"}), tags.Overwrite(nil), meta.Set(map[string]int{"a": 1}), count.Set(-4), best.Set(7)} {
		ch, data, err := schema.EncodeWrite(w, codec)
		require.NoError(t, err)
		got, err := schema.DecodeWrite(ch, data, codec)
		require.NoError(t, err)
		require.Equal(t, w.Field(), got.Field())
		require.Equal(t, w.IsOverwrite(), got.IsOverwrite())
		require.Equal(t, w.Value(), got.Value())
	}
	_, err := schema.DecodeWrite("nope", []byte(`1`), codec)
	require.ErrorContains(t, err, `no field "nope"`)
	_, err = schema.DecodeWrite("count", []byte(`"x"`), codec)
	require.ErrorContains(t, err, `field "count"`)
}

func TestDecodeSnapshotWithDeltas(t *testing.T) {
	t.Parallel()
	codec := jsonCodec{}
	s := doc{Tags: []string{"a", "b", "c"}}
	i := schema.Index("tags")
	snap, err := schema.Encode(&s, i, codec)
	require.NoError(t, err)
	s.Tags = append(s.Tags, "d", "e")
	tail, err := schema.EncodeTail(&s, i, 3, codec)
	require.NoError(t, err)
	require.JSONEq(t, `["d","e"]`, string(tail))
	var got doc
	require.NoError(t, schema.Decode(&got, i, snap, [][]byte{tail, []byte(`["f"]`)}, codec))
	require.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, got.Tags)
	require.Error(t, schema.Decode(&got, i, []byte(`{`), nil, codec))
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	codec := jsonCodec{}
	s := doc{Title: "t", Tags: []string{"a"}, Meta: map[string]int{"m": 1}, Count: 3, Best: 4}
	m, err := schema.EncodeState(&s, codec)
	require.NoError(t, err)
	got, err := schema.DecodeState(m, codec)
	require.NoError(t, err)
	require.Equal(t, s, got)
}

type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (jsonCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func TestDiffReplaysAsTheSameState(t *testing.T) {
	t.Parallel()
	from := doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}
	cases := []struct {
		name string
		to   doc
		over []string // fields expected as overwrites
	}{
		{"nothing changed", from, nil},
		{"append tail and sum delta", doc{Title: "b", Tags: []string{"x", "y"}, Meta: map[string]int{"k": 1}, Count: 7, Best: 5}, nil},
		{"append rewritten", doc{Title: "a", Tags: []string{"z"}, Meta: map[string]int{"k": 1}, Count: 2, Best: 5}, []string{"tags"}},
		{"merge and custom changed", doc{Title: "a", Tags: []string{"x"}, Meta: map[string]int{"j": 1}, Count: 2, Best: 1}, []string{"meta", "best"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ws := schema.Diff(&from, &c.to)
			var over []string
			for _, w := range ws {
				if w.IsOverwrite() {
					over = append(over, w.Field())
				}
			}
			require.Equal(t, c.over, over)
			got := from
			got.Tags = append([]string(nil), from.Tags...)
			a := schema.NewApplier()
			require.NoError(t, a.Add("sub", ws))
			_, err := a.Apply(&got, false)
			require.NoError(t, err)
			require.Equal(t, c.to, got)
		})
	}
}

// An append to a field that was nil (or empty) is an append, not an
// overwrite: two subgraphs appending to it in one step must both land.
func TestDiffOfAnAppendToANilField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		from, to  []string
		wantWrite bool
	}{
		{"nil to some", nil, []string{"a"}, true},
		{"empty to some", []string{}, []string{"a", "b"}, true},
		{"nil to empty", nil, []string{}, false},
		{"empty to nil", []string{}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			from, to := doc{Tags: c.from}, doc{Tags: c.to}
			ws := schema.Diff(&from, &to)
			if !c.wantWrite {
				require.Empty(t, ws)
				return
			}
			require.Len(t, ws, 1)
			require.False(t, ws[0].IsOverwrite())
			// Two such diffs in one step both apply.
			got := doc{}
			a := schema.NewApplier()
			require.NoError(t, a.Add("one", ws))
			require.NoError(t, a.Add("two", ws))
			_, err := a.Apply(&got, false)
			require.NoError(t, err)
			require.Equal(t, append(slices.Clone(c.to), c.to...), got.Tags)
		})
	}
}
