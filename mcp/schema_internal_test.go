package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedSchema is an input schema with an object inside an object and an
// array of objects.
const nestedSchema = `{
  "type": "object",
  "required": ["trip"],
  "properties": {
    "trip": {
      "type": "object",
      "required": ["city"],
      "additionalProperties": false,
      "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "stops": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "kind": {"enum": ["museum", "park"]}}
          }
        }
      }
    },
    "tags": {"type": "object", "additionalProperties": {"type": "string"}}
  }
}`

func TestCheckArgsChecksNestedObjectsAndArrays(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	require.NoError(t, json.Unmarshal([]byte(nestedSchema), &schema))
	for _, tc := range []struct {
		input string
		want  string // "" when accepted
	}{
		{`{"trip":{"city":"Oslo"}}`, ""},
		{`{"trip":{"city":"Oslo","days":3,"stops":[{"name":"Munch","kind":"museum"}]},"tags":{"a":"b"}}`, ""},
		{`{}`, `missing required field "trip"`},
		{`{"trip":{}}`, `missing required field "trip.city"`},
		{`{"trip":{"city":7}}`, `field "trip.city": want string, got 7`},
		{`{"trip":{"city":"Oslo","days":1.5}}`, `field "trip.days": want integer, got 1.5`},
		{`{"trip":{"city":"Oslo","nights":2}}`, `unknown field "trip.nights" (fields: city, days, stops)`},
		{`{"trip":{"city":"Oslo","stops":[{"name":"a"},{}]}}`, `missing required field "trip.stops[1].name"`},
		{`{"trip":{"city":"Oslo","stops":[{"name":"a","kind":"zoo"}]}}`, `field "trip.stops[0].kind": "zoo" is not one of ["museum","park"]`},
		{`{"trip":{"city":"Oslo"},"tags":{"a":1}}`, `field "tags.a": want string, got 1`},
		{`{"trip":"Oslo"}`, `field "trip": want object, got "Oslo"`},
		{`[1]`, `want a JSON object, got [1]`},
	} {
		err := checkArgs(schema, []byte(tc.input))
		if tc.want == "" {
			assert.NoError(t, err, tc.input)
			continue
		}
		assert.EqualError(t, err, tc.want, tc.input)
	}
}

func FuzzCheckArgs(f *testing.F) {
	var schema map[string]any
	require.NoError(f, json.Unmarshal([]byte(nestedSchema), &schema))
	for _, s := range []string{`{"trip":{"city":"Oslo","stops":[{"name":"a"}]}}`, `{}`, `[1]`, `{"trip":{"stops":[[]]}}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		err := checkArgs(schema, []byte(input))
		var v map[string]any
		if json.Unmarshal([]byte(input), &v) != nil || v == nil {
			require.Error(t, err, "what is not a JSON object is refused")
		}
	})
}
