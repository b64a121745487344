package plan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveInput(t *testing.T) {
	t.Parallel()
	results := Results{
		"s1":   {ID: "s1", Status: StatusCompleted, Result: `{"warehouse":"A","qty":1,"items":[{"sku":"X"}],"deep":{"a":{"b":true}}}`},
		"txt":  {ID: "txt", Status: StatusCompleted, Result: "plain <text>"},
		"num":  {ID: "num", Status: StatusCompleted, Result: "42"},
		"wait": {ID: "wait", Status: StatusPending},
		"bad":  {ID: "bad", Status: StatusFailed, Error: "boom"},
	}
	tests := []struct {
		name, in, want, err string
	}{
		{name: "no references", in: `{"a":"b"}`, want: `{"a":"b"}`},
		{name: "whole value is JSON", in: `{"order":"{{s1.result}}"}`, want: `{"order":{"deep":{"a":{"b":true}},"items":[{"sku":"X"}],"qty":1,"warehouse":"A"}}`},
		{name: "field", in: `{"w":"{{s1.result.warehouse}}","q":"{{ s1.result.qty }}"}`, want: `{"q":1,"w":"A"}`},
		{name: "nested field and index", in: `["{{s1.result.items.0.sku}}","{{s1.result.deep.a.b}}"]`, want: `["X",true]`},
		{name: "inside a longer string", in: `"from {{s1.result.warehouse}}, qty {{s1.result.qty}}, {{s1.result.deep.a}}"`, want: `"from A, qty 1, {\"b\":true}"`},
		{name: "plain text result", in: `{"t":"{{txt.result}}","u":"<{{txt.result}}>"}`, want: `{"t":"plain <text>","u":"<plain <text>>"}`},
		{name: "number result", in: `"{{num.result}}"`, want: `42`},
		{name: "not completed", in: `"{{wait.result}}"`, err: `step "me": reference {{wait.result}}: step "wait" is pending, not completed`},
		{name: "failed", in: `"{{bad.result}}"`, err: `step "bad" is failed, not completed`},
		{name: "unknown step", in: `"{{nope.result}}"`, err: `no step "nope" in the plan`},
		{name: "self", in: `"{{me.result}}"`, err: "a step cannot reference its own result"},
		{name: "missing field", in: `"{{s1.result.deep.x}}"`, err: `reference {{s1.result.deep.x}}: the result.deep of step "s1" has no field "x"`},
		{name: "bad index", in: `"{{s1.result.items.3}}"`, err: `the result.items of step "s1" is an array of 1; "3" is not an index in it`},
		{name: "field of a scalar", in: `"{{s1.result.qty.x}}"`, err: `the result.qty of step "s1" is not an object, so it has no field "x"`},
		{name: "field of text", in: `"{{txt.result.x}}"`, err: `the result of step "txt" is not JSON, so it has no field "x"`},
		{name: "invalid input JSON", in: `{"a": "{{s1.result}}"`, err: "input is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ResolveInput("me", json.RawMessage(tt.in), results)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got))
		})
	}
	_, err := ResolveInput("me", json.RawMessage(`"{{wait.result}}"`), results)
	require.ErrorIs(t, err, ErrReference)
}

func TestFindRefs(t *testing.T) {
	t.Parallel()
	refs := FindRefs(`{"a":"{{step_1.result}}","b":"x {{P-2.result.f.0}} {{not a ref}}"}`)
	require.Equal(t, []Ref{
		{Raw: "{{step_1.result}}", StepID: "step_1"},
		{Raw: "{{P-2.result.f.0}}", StepID: "P-2", Path: []string{"f", "0"}},
	}, refs)
}

func FuzzResolveInput(f *testing.F) {
	f.Add(`{"a":"{{s1.result.x}}"}`, `{"x":[1,{"y":2}]}`)
	f.Add(`"{{s1.result}} and {{s1.result.0}}"`, `[1]`)
	f.Add(`["{{s1.result.x.y.z}}"]`, `not json`)
	f.Fuzz(func(t *testing.T, in, result string) {
		res := Results{"s1": {ID: "s1", Status: StatusCompleted, Result: result}}
		out, err := ResolveInput("s2", json.RawMessage(in), res)
		if err == nil && json.Valid([]byte(in)) && !json.Valid(out) {
			t.Fatalf("valid input %q resolved to invalid JSON %q", in, out)
		}
	})
}
