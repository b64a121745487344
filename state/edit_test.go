package state_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/state"
)

func TestFromStructNamesTheFieldAndTagAtFault(t *testing.T) {
	t.Parallel()
	type Embedded struct{ X int }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown word", state.FromStruct[struct {
			Jokes []string `state:"apend"`
		}]().Err(), "field Jokes of struct { Jokes []string \"state:\\\"apend\\\"\" } (tag `state:\"apend\"`): unknown word \"apend\""},
		{"append on a string", state.FromStruct[struct {
			Topic string `state:"append"`
		}]().Err(), "field Topic of struct { Topic string \"state:\\\"append\\\"\" } (tag `state:\"append\"`): append needs a slice, not string"},
		{"merge on a slice", state.FromStruct[struct {
			M []int `state:"merge"`
		}]().Err(), "merge needs a map, not []int"},
		{"sum on a string", state.FromStruct[struct {
			N string `state:"sum"`
		}]().Err(), "sum needs a number (an integer or a float), not string"},
		{"unregistered reducer", state.FromStruct[struct {
			N int `state:"reducer=nope"`
		}]().Err(), `no reducer named "nope" is registered (state.RegisterReducer)`},
		{"reducer of another type", state.FromStruct[struct {
			N int `state:"reducer=test.longest"`
		}]().Err(), `reducer "test.longest" reduces string, but the field holds int`},
		{"tagged unexported", state.FromStruct[struct {
			n int `state:"sum"`
		}]().Err(), "the field is unexported"},
		{"embedded", state.FromStruct[struct{ Embedded }]().Err(), "an embedded field cannot be a schema field"},
		{"duplicate names", state.FromStruct[struct {
			A int `state:"name=x"`
			B int `state:"name=x"`
		}]().Err(), `field name "x" is declared twice`},
		{"not a struct", state.FromStruct[int]().Err(), "FromStruct needs a struct type, not int"},
	} {
		require.Error(t, tc.err, tc.name)
		assert.Contains(t, tc.err.Error(), tc.want, tc.name)
	}
}

func TestEditWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	sc := state.FromStruct[Rich]()
	base := Rich{Topic: "go", Items: make([]string, 1, 8), Scores: map[string]int{"a": 1, "b": 2}, Calls: 3}
	base.Items[0] = "x"
	for _, tc := range []struct {
		name string
		edit func(*Rich)
		want map[string]any // field → value
		over map[string]bool
	}{
		{"nothing", func(*Rich) {}, map[string]any{}, nil},
		{"the same value", func(r *Rich) { r.Topic = "go" }, map[string]any{}, nil},
		{"a value", func(r *Rich) { r.Topic = "" }, map[string]any{"topic": ""}, nil},
		{"an append", func(r *Rich) { r.Items = append(r.Items, "y") }, map[string]any{"items": []string{"y"}}, nil},
		{"an element changed", func(r *Rich) { r.Items[0] = "z" }, map[string]any{"items": []string{"z"}}, map[string]bool{"items": true}},
		{"a key set", func(r *Rich) { r.Scores["c"] = 3; r.Scores["a"] = 1 }, map[string]any{"scores": map[string]int{"c": 3}}, nil},
		{"a key deleted", func(r *Rich) { delete(r.Scores, "a") }, map[string]any{"scores": map[string]int{"b": 2}}, map[string]bool{"scores": true}},
		{"a sum", func(r *Rich) { r.Calls += 4 }, map[string]any{"n_calls": 4}, nil},
	} {
		u := sc.Edit(base, tc.edit)
		got := map[string]any{}
		for _, w := range u.Writes {
			got[w.Field()] = w.Value()
			assert.Equal(t, tc.over[w.Field()], w.IsOverwrite(), "%s: %s", tc.name, w.Field())
		}
		assert.Equal(t, tc.want, got, tc.name)
		// The edited copy's slices and maps were its own.
		assert.Equal(t, "x", base.Items[0], tc.name)
		assert.Len(t, base.Items, 1, tc.name)
		assert.Equal(t, map[string]int{"a": 1, "b": 2}, base.Scores, tc.name)
	}
}

// Edit of a schema declared by hand makes the writes its keys would.
func TestEditOfAHandWrittenSchemaMakesItsKeysWrites(t *testing.T) {
	t.Parallel()
	items := state.Append("items", func(r *Rich) *[]string { return &r.Items })
	sc := state.NewSchema(items)
	u := sc.Edit(Rich{}, func(r *Rich) { r.Items = append(r.Items, "a", "b") })
	require.Len(t, u.Writes, 1)
	assert.Equal(t, sc.IndexOf(items.Set(nil)), sc.IndexOf(u.Writes[0]))
	assert.Equal(t, []string{"a", "b"}, u.Writes[0].Value())
}
