package usage_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/internal/usage"
)

func TestOfReadsEachProvidersNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		resp    *llms.ContentResponse
		p, c, t int
	}{
		{"nil", nil, 0, 0, 0},
		{"openai", &llms.ContentResponse{Choices: []*llms.ContentChoice{{GenerationInfo: map[string]any{"PromptTokens": 10, "CompletionTokens": 5, "TotalTokens": 15}}}}, 10, 5, 15},
		{"anthropic, no total", &llms.ContentResponse{Choices: []*llms.ContentChoice{{GenerationInfo: map[string]any{"InputTokens": int64(7), "OutputTokens": int32(3)}}}}, 7, 3, 10},
		{"snake case, floats", &llms.ContentResponse{Choices: []*llms.ContentChoice{{GenerationInfo: map[string]any{"input_tokens": 2.0, "output_tokens": 1.0}}}}, 2, 1, 3},
		{"summed over choices, nil skipped", &llms.ContentResponse{Choices: []*llms.ContentChoice{
			{GenerationInfo: map[string]any{"PromptTokens": 1, "CompletionTokens": 1}}, nil,
			{GenerationInfo: map[string]any{"PromptTokens": 2, "CompletionTokens": 3}}}}, 3, 4, 7},
		{"none reported", &llms.ContentResponse{Choices: []*llms.ContentChoice{{GenerationInfo: map[string]any{"PromptTokens": "x"}}}}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, c, tot := usage.Of(tc.resp)
			assert.Equal(t, []int{tc.p, tc.c, tc.t}, []int{p, c, tot})
		})
	}
}
