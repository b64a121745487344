package nodes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// compactSchema reads any text without panicking, and returns the schema
// as it is or an object of plain fields.
func FuzzCompactSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"city":{"type":"string","description":"the city"},"days":{"type":"integer"}},"required":["city"]}`)
	f.Add(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["a","b"]}}}`)
	f.Add(`{"type":"object","properties":{"nested":{"type":"object"}}}`)
	f.Add(`not json`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, schema string) {
		got := compactSchema(schema)
		if got != schema && !(strings.HasPrefix(got, "{") && strings.HasSuffix(got, "}")) {
			t.Fatalf("compactSchema(%q) = %q: neither the schema nor an object", schema, got)
		}
	})
}

func TestCompactSchema(t *testing.T) {
	t.Parallel()
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"days":{"type":"integer"},"city":{"type":"string","description":"the city"}},"required":["city"]}`,
			`{"city": string (the city), "days?": integer}`},
		{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["a","b"]}},"required":["tags","mode"]}`,
			`{"tags": string[], "mode": string one of ["a","b"]}`},
		{`{"type":"object","properties":{"nested":{"type":"object"}}}`, `{"type":"object","properties":{"nested":{"type":"object"}}}`},
		{``, ``},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, compactSchema(tt.schema), tt.schema)
	}
}
