package plan

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePlanAccepts(t *testing.T) {
	t.Parallel()
	const obj = `{"goal":"g","steps":[{"id":"s1","description":"d1","tool":"search","input":{"q":"x"}},{"id":"s2","description":"d2","tool":"","depends_on":["s1"]}]}`
	tests := []struct {
		name string
		text string
		want Plan
	}{
		{"bare object", obj, Plan{Goal: "g", Steps: []Step{
			{ID: "s1", Description: "d1", Tool: "search", Input: json.RawMessage(`{"q":"x"}`)},
			{ID: "s2", Description: "d2", DependsOn: []string{"s1"}}}}},
		{"json fence", "Here is the plan:\n```json\n" + obj + "\n```\nHope it helps {really}.", Plan{}},
		{"plain fence", "```\n" + obj + "\n```", Plan{}},
		{"prose around", "Sure! I think [1] the best plan is " + obj + " — let me know {if} you need more.", Plan{}},
		{"fence preferred over prose json", `Example: {"steps":[{"id":"bad"}]}` + "\n```json\n" + obj + "\n```", Plan{}},
		{"array of steps", `[{"id":"a","description":"x","tool":"t"},{"id":"b","description":"y","tool":"t","deps":["a"]}]`,
			Plan{Steps: []Step{{ID: "a", Description: "x", Tool: "t"}, {ID: "b", Description: "y", Tool: "t", DependsOn: []string{"a"}}}}},
		{"aliases and integer ids", `{"steps":[{"id":1,"description":"x","tool_name":"t","tool_input":{"k":1}},{"id":2,"description":"y","tool":"t","dependencies":[1]}]}`,
			Plan{Steps: []Step{{ID: "1", Description: "x", Tool: "t", Input: json.RawMessage(`{"k":1}`)}, {ID: "2", Description: "y", Tool: "t", DependsOn: []string{"1"}}}}},
		{"string input kept as JSON string", `{"steps":[{"id":"a","description":"x","tool":"t","input":"O1001"}]}`,
			Plan{Steps: []Step{{ID: "a", Description: "x", Tool: "t", Input: json.RawMessage(`"O1001"`)}}}},
		{"status and constraints", `{"goal":"g","constraints":["c1"],"steps":[{"id":"a","description":"x","tool":"t","status":"completed","result":{"n":1},"evidence":["e"]}]}`,
			Plan{Goal: "g", Constraints: []string{"c1"}, Steps: []Step{{ID: "a", Description: "x", Tool: "t", Status: StatusCompleted, Result: `{"n":1}`, Evidence: []string{"e"}}}}},
		{"empty steps", `{"goal":"g","steps":[]}`, Plan{Goal: "g", Steps: []Step{}}},
	}
	base, err := Parse(obj)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.text)
			require.NoError(t, err)
			want := tt.want
			if want.Steps == nil {
				want = base
			}
			require.Equal(t, want, got)
		})
	}
}

func TestParsePlanRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		text     string
		line     int
		column   int
		contains string
		noPlan   bool
	}{
		{name: "trailing comma in array", text: "Plan:\n{\"steps\": [\n  {\"id\": \"a\", \"tool\": \"t\"},\n]}", line: 3, column: 27, contains: "trailing comma before ']'"},
		{name: "trailing comma in object", text: `{"steps": [{"id": "a", "tool": "t",}]}`, line: 1, column: 35, contains: "trailing comma before '}'"},
		{name: "missing quote", text: "{\"steps\": [{\"id\": a}]}", line: 1, column: 19, contains: "invalid character 'a'"},
		{name: "truncated", text: "```json\n{\"steps\": [{\"id\": \"a\"", contains: "JSON ends early"},
		{name: "steps not array", text: `{"steps": "do it"}`, line: 1, column: 1, contains: `"steps" must be an array of step objects, got a string`},
		{name: "step not object", text: `{"steps": [{"id":"a"}, 3]}`, contains: "step 2: expected an object, got a number"},
		{name: "bad depends_on", text: `{"steps": [{"id":"a","depends_on":"b"}]}`, contains: `field "depends_on" must be an array of step ids, got a string`},
		{name: "bad status", text: `{"steps": [{"id":"a","status":"done"}]}`, contains: `unknown status "done"`},
		{name: "bad id", text: `{"steps": [{"id":{"x":1}}]}`, contains: "a step id must be a string or an integer, got an object"},
		{name: "no json", text: "I cannot help with that.", noPlan: true},
		{name: "json without steps", text: `{"answer": 42} and [1, 2]`, noPlan: true},
		{name: "empty", text: "", noPlan: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.text)
			require.Error(t, err)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "error %T", err)
			if tt.noPlan {
				require.ErrorIs(t, err, ErrNotFound)
				return
			}
			require.Contains(t, pe.Msg, tt.contains)
			if tt.line > 0 {
				require.Equal(t, tt.line, pe.Line, pe.Error())
				require.Equal(t, tt.column, pe.Column, pe.Error())
				require.Contains(t, pe.Error(), "line ")
			}
		})
	}
}

func TestParsePlanRoundTrip(t *testing.T) {
	t.Parallel()
	p := Plan{Goal: "g", Constraints: []string{"c"}, Steps: []Step{
		{ID: "a", Description: "x", Tool: "t", Input: json.RawMessage(`{"k":"{{b.result}}"}`), Status: StatusCompleted, Result: "r", Evidence: []string{"e"}},
		{ID: "b", Description: "y", DependsOn: []string{"a"}, Status: StatusFailed, Error: "boom"},
	}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.Contains(t, string(b), `"depends_on":["a"]`)
	got, err := Parse(string(b))
	require.NoError(t, err)
	require.Equal(t, p, got)
}

func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{
		`{"goal":"g","steps":[{"id":"s1","tool":"t","input":{"a":1},"depends_on":["s0"]}]}`,
		"```json\n[{\"id\":1}]\n```",
		`prose {"steps":[{"id":"a",}]}`,
		`[{"id":"a","deps":[1,2]}, {"id":"b","status":"skipped"}]`,
		"{", "[", "```", "{\"steps\":[{\"id\":\"\\u0000\"}]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, not *ParseError", err)
			}
			if pe.Offset < 0 || pe.Offset > len(s) {
				t.Fatalf("offset %d out of range for %d bytes", pe.Offset, len(s))
			}
			return
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("parsed plan does not marshal: %v", err)
		}
		_ = Check(p, nil)
		_, _ = TopoOrder(p)
		_ = ScoreOf(p, nil)
	})
}

func TestSchemaIsAJSONSchemaOfWhatParseReads(t *testing.T) {
	t.Parallel()
	var s struct {
		Required   []string `json:"required"`
		Properties struct {
			Steps struct {
				MinItems int `json:"minItems"`
				Items    struct {
					Required []string `json:"required"`
				} `json:"items"`
			} `json:"steps"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal([]byte(Schema), &s))
	require.Equal(t, []string{"steps"}, s.Required, "the goal is the request's: a model need not repeat it")
	require.Equal(t, 1, s.Properties.Steps.MinItems)
	require.Equal(t, []string{"id", "description", "tool", "input", "depends_on"}, s.Properties.Steps.Items.Required)
	require.NotContains(t, Schema, "\n", "compact: it is in every planner prompt")
	require.Less(t, len(Schema), 650)
}
