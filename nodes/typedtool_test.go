package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
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

func TestThePlannerIsShownATypedToolsInputSchema(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{replies: []string{`{"goal":"g","steps":[{"id":"w","description":"forecast","tool":"weather","input":{"city":"Paris","date":"2024-06-07"},"depends_on":[]},{"id":"a","description":"answer","tool":"","input":{},"depends_on":["w"]}]}`}}
	pl := &nodes.LLMPlanner{Model: m, Tools: []tools.Tool{weatherTool()}}
	_, _, err := pl.Plan(t.Context(), nodes.PlanRequest{Goal: "weather in Paris"})
	require.NoError(t, err)
	require.Contains(t, m.prompts[0], "- weather: The forecast for a city on a date. Input: {")
	require.Contains(t, m.prompts[0], `"city": string (the city), "date": string (YYYY-MM-DD), "days?": integer`, "compact: required fields first, the others marked")
}

func TestAReActStepOffersATypedToolsFieldsAsItsParameters(t *testing.T) {
	t.Parallel()
	args, _ := json.Marshal(map[string]any{"city": "Paris", "date": "2024-06-07"})
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: string(args)}}}},
		{Content: "Sunny."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: []tools.Tool{weatherTool()}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "ask", Description: "What is the weather in Paris on 7 June?"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status, out.Err)
	params, err := json.Marshal(m.tools[0][0].Function.Parameters)
	require.NoError(t, err)
	require.JSONEq(t, string(weatherTool().InputSchema()), string(params))
	require.JSONEq(t, string(args), out.Audit[0].Input, "the model's arguments are the tool's input")
}
