// Package usage reads the token counts a langchaingo model call reports,
// for the agent's budgets (package nodes) and the model spans and metrics
// (package telemetry) alike.
package usage

import "github.com/tmc/langchaingo/llms"

// Of returns the prompt (input), completion (output) and total tokens of
// resp, summed over its choices, from each choice's GenerationInfo:
// PromptTokens/CompletionTokens/TotalTokens as OpenAI's client reports
// them, InputTokens/OutputTokens as Anthropic's does, or their snake-case
// forms. A total not reported is the sum of the other two.
func Of(resp *llms.ContentResponse) (prompt, completion, total int) {
	if resp == nil {
		return 0, 0, 0
	}
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		p := firstInt(c.GenerationInfo, "PromptTokens", "InputTokens", "input_tokens", "prompt_tokens")
		q := firstInt(c.GenerationInfo, "CompletionTokens", "OutputTokens", "output_tokens", "completion_tokens")
		t := firstInt(c.GenerationInfo, "TotalTokens", "total_tokens")
		if t == 0 {
			t = p + q
		}
		prompt, completion, total = prompt+p, completion+q, total+t
	}
	return prompt, completion, total
}

// firstInt returns the first of keys that m holds as a number.
func firstInt(m map[string]any, keys ...string) int {
	for _, k := range keys {
		switch v := m[k].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		}
	}
	return 0
}
