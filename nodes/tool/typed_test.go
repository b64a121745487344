package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city"`
	Date string `json:"date" jsonschema:"description=YYYY-MM-DD"`
	Days int    `json:"days,omitempty"`
}

func weatherTool() *tool.Typed[weatherArgs] {
	return tool.New("weather", "The forecast for a city on a date.", func(_ context.Context, a weatherArgs) (string, error) {
		return fmt.Sprintf(`{"city":%q,"date":%q,"days":%d,"forecast":"sun"}`, a.City, a.Date, a.Days), nil
	})
}

func TestNewDerivesTheInputSchemaFromTheArgumentType(t *testing.T) {
	t.Parallel()
	var s struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(weatherTool().InputSchema(), &s))
	require.Equal(t, "object", s.Type)
	require.Equal(t, []string{"city", "date"}, s.Required, "omitempty fields are optional")
	require.JSONEq(t, `{"type":"string","description":"the city"}`, string(s.Properties["city"]))
	require.JSONEq(t, `{"type":"integer"}`, string(s.Properties["days"]))
}

func TestATypedToolChecksItsInputNamingTheField(t *testing.T) {
	t.Parallel()
	w := weatherTool()
	out, err := w.Call(t.Context(), `{"city":"Paris","date":"2024-06-07"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"city":"Paris","date":"2024-06-07","days":0,"forecast":"sun"}`, out)
	for input, want := range map[string]string{
		`{"city":"Paris"}`:                                `bad input: missing required field "date"`,
		`{"city":"Paris","date":"x","when":"now"}`:        `bad input: unknown field "when" (fields: city, date, days)`,
		`{"city":"Paris","date":"2024-06-07","days":"3"}`: `bad input: field "days": want int, got string`,
		`"Paris"`: `bad input: want a JSON object with fields city, date, days, got "Paris"`,
	} {
		_, err := w.Call(t.Context(), input)
		require.ErrorIs(t, err, plan.ErrBadInput, input)
		require.EqualError(t, err, want)
		require.Equal(t, plan.ErrKindBadInput, plan.ClassifyError(err))
	}
}
