package plan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnswerIsTheFinalStepsAnswerWithItsReferencesResolved(t *testing.T) {
	t.Parallel()
	done := func(id, tool, input, result string, deps ...string) Step {
		return Step{ID: id, Tool: tool, Input: json.RawMessage(input), Result: result, Status: StatusCompleted, DependsOn: deps}
	}
	fx := done("fx", "fx", `{}`, `{"rate":0.92,"fact":"1 USD = 0.92 EUR"}`)
	price := done("price", "price", `{}`, `40 USD`)
	tests := []struct {
		name    string
		last    Step
		want    string
		ok      bool
		wantErr string
	}{
		{"fields and whole results", done("answer", "", `{"answer":"{{price.result}} at {{fx.result.fact}} ({{fx.result.rate}})"}`, "", "fx", "price"),
			"40 USD at 1 USD = 0.92 EUR (0.92)", true, ""},
		{"no answer key", done("answer", "", `{}`, "", "fx"), "", false, ""},
		{"a tool step", done("answer", "fx", `{"answer":"x"}`, "", "fx"), "", false, ""},
		{"not completed", Step{ID: "answer", Input: json.RawMessage(`{"answer":"x"}`), Status: StatusPending}, "", false, ""},
		{"not a string", done("answer", "", `{"answer":3}`, ""), "", false, `"answer" must be a string, got a number`},
		{"a missing field", done("answer", "", `{"answer":"{{fx.result.nope}}"}`, "", "fx"), "", false, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plan{Steps: []Step{fx, price, tt.last}}
			got, ok, err := p.Answer()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
	_, ok, err := Plan{}.Answer()
	require.False(t, ok)
	require.NoError(t, err)
}
