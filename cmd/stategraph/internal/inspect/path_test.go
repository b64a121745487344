package inspect

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePathReadsDotsIndexesAndQuotedKeys(t *testing.T) {
	t.Parallel()
	key := func(k string) Segment { return Segment{Key: k} }
	idx := func(i int, k string) Segment { return Segment{Key: k, Index: i, IsIndex: true} }
	for in, want := range map[string][]Segment{
		"plan":                  {key("plan")},
		"plan.steps.0":          {key("plan"), key("steps"), idx(0, "0")},
		"plan.steps[12].name":   {key("plan"), key("steps"), idx(12, "12"), key("name")},
		`attrs["due.date"]`:     {key("attrs"), key("due.date")},
		`["a field"].x`:         {key("a field"), key("x")},
		`m[""]`:                 {key("m"), key("")},
		"m.007":                 {key("m"), key("007")}, // not an index: a key of digits
		`m["]"].k`:              {key("m"), key("]"), key("k")},
		"messages.-1":           {key("messages"), key("-1")},
		"unicode.clé.日本":        {key("unicode"), key("clé"), key("日本")},
		`list[3]["x y"][0].end`: {key("list"), idx(3, "3"), key("x y"), idx(0, "0"), key("end")},
	} {
		got, err := ParsePath(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		"":          "empty field path",
		"plan..x":   "an empty step",
		"plan.":     "an empty step",
		"[0].x":     "starts with a field's name",
		"a[x]":      "neither an index nor a quoted key",
		"a[1":       "no ] closes",
		`a["x"`:     "want ] after the key",
		`a["x]`:     "bad quoted key",
		`a["x"]b`:   "want . or [",
		"a[-1]":     "neither an index",
		"a.b[0]c.d": "want . or [",
	} {
		_, err := ParsePath(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), msg, in)
	}
}

func TestSelectReturnsTheValueAtAPath(t *testing.T) {
	t.Parallel()
	values := map[string]json.RawMessage{
		"plan":  json.RawMessage(`{"goal":"ship","steps":[{"name":"order","done":true},{"name":"stock_a","done":false}]}`),
		"attrs": json.RawMessage(`{"due.date":"mon","n":9007199254740993}`),
		"topic": json.RawMessage(`"Go"`),
	}
	for path, want := range map[string]string{
		"topic":             `"Go"`,
		"plan.goal":         `"ship"`,
		"plan.steps.0":      `{"done":true,"name":"order"}`,
		"plan.steps[1]":     `{"done":false,"name":"stock_a"}`,
		"plan.steps.1.name": `"stock_a"`,
		`attrs["due.date"]`: `"mon"`,
		"attrs.n":           `9007199254740993`, // exact: not rounded through a float
		"plan.steps":        `[{"done":true,"name":"order"},{"done":false,"name":"stock_a"}]`,
	} {
		got, err := Select(values, path)
		require.NoError(t, err, path)
		assert.Equal(t, want, string(got), path)
	}
	for path, msg := range map[string]string{
		"nope":                `unknown field "nope": the state has no field "nope" (its fields are "attrs", "plan", "topic")`,
		"plan.stepz":          `unknown field "plan.stepz": plan has no key "stepz" (its keys are "goal", "steps")`,
		"plan.steps.2":        `unknown field "plan.steps.2": plan.steps has 2 elements (indexes 0 to 1)`,
		"plan.steps.first":    `unknown field "plan.steps.first": plan.steps is an array: give an index, not "first"`,
		"topic.x":             `unknown field "topic.x": topic is a string, not an object or an array`,
		"plan.steps.0.done.x": `plan.steps.0.done is a boolean`,
		`attrs["due.date"].x`: `attrs["due.date"] is a string`,
	} {
		_, err := Select(values, path)
		require.Error(t, err, path)
		assert.ErrorIs(t, err, ErrUnknownField, path)
		assert.Contains(t, err.Error(), msg, path)
	}
}

// Every path Diff prints selects the value it describes, in A or in B.
func TestDiffPathsSelectWhatChanged(t *testing.T) {
	t.Parallel()
	a := map[string]json.RawMessage{
		"plan":  json.RawMessage(`{"goal":"ship","steps":[{"name":"order","status":"done"},{"name":"stock_a","status":"todo"}],"old":1,"odd key":{"x":1}}`),
		"log":   json.RawMessage(`["a"]`),
		"mixed": json.RawMessage(`{"v":[1]}`),
		"fresh": json.RawMessage(`null`),
	}
	b := map[string]json.RawMessage{
		"plan":  json.RawMessage(`{"goal":"ship","steps":[{"name":"order","status":"done"},{"name":"stock_a","status":"blocked","why":"no stock"},{"name":"stock_b"}],"odd key":{"x":2}}`),
		"log":   json.RawMessage(`["a","b","c"]`),
		"mixed": json.RawMessage(`{"v":{"w":1}}`),
		"fresh": json.RawMessage(`[{"k":1}]`),
	}
	got := Diff(a, b)
	require.Len(t, got, 4)
	byField := map[string]Change{}
	for _, c := range got {
		byField[c.Field] = c
	}
	assert.Equal(t, []PathChange{
		{Path: "log.1", Kind: Added, After: json.RawMessage(`"b"`)},
		{Path: "log.2", Kind: Added, After: json.RawMessage(`"c"`)},
	}, byField["log"].Paths)
	assert.Equal(t, Appended, byField["log"].Kind)
	assert.Equal(t, Appended, byField["fresh"].Kind, "null to an array is an append to nothing")
	assert.Equal(t, []PathChange{
		{Path: "fresh.0", Kind: Added, After: json.RawMessage(`{"k":1}`)},
	}, byField["fresh"].Paths)
	assert.Equal(t, []PathChange{
		{Path: "mixed.v", Kind: Changed, Before: json.RawMessage(`[1]`), After: json.RawMessage(`{"w":1}`)},
	}, byField["mixed"].Paths, "an array that became an object is one change")
	plan := byField["plan"]
	assert.Equal(t, Changed, plan.Kind)
	assert.Equal(t, []PathChange{
		{Path: `plan["odd key"].x`, Kind: Changed, Before: json.RawMessage(`1`), After: json.RawMessage(`2`)},
		{Path: "plan.old", Kind: Removed, Before: json.RawMessage(`1`)},
		{Path: "plan.steps.1.status", Kind: Changed, Before: json.RawMessage(`"todo"`), After: json.RawMessage(`"blocked"`)},
		{Path: "plan.steps.1.why", Kind: Added, After: json.RawMessage(`"no stock"`)},
		{Path: "plan.steps.2", Kind: Added, After: json.RawMessage(`{"name":"stock_b"}`)},
	}, plan.Paths)
	for _, c := range got {
		for _, p := range c.Paths {
			side, want := b, p.After
			if p.Kind == Removed {
				side, want = a, p.Before
			}
			v, err := Select(side, p.Path)
			require.NoError(t, err, p.Path)
			assert.JSONEq(t, string(want), string(v), p.Path)
		}
	}
	// A scalar change has no paths: the field is the leaf.
	d := Diff(map[string]json.RawMessage{"n": json.RawMessage(`1`)}, map[string]json.RawMessage{"n": json.RawMessage(`2`)})
	require.Len(t, d, 1)
	assert.Nil(t, d[0].Paths)
}
