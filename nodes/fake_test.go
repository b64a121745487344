package nodes_test

import (
	"context"
	"errors"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// scriptedModel is a fake llms.Model that returns its replies in order and
// records the prompts it was given.
type scriptedModel struct {
	mu      sync.Mutex
	replies []string
	err     error // returned instead of a reply when set
	prompts []string
}

var _ llms.Model = (*scriptedModel)(nil)

func (m *scriptedModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var prompt string
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if tp, ok := p.(llms.TextContent); ok {
				prompt += tp.Text
			}
		}
	}
	m.prompts = append(m.prompts, prompt)
	if m.err != nil {
		return nil, m.err
	}
	if len(m.replies) == 0 {
		return nil, errors.New("scripted model: no more replies")
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:        r,
		GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": 20, "TotalTokens": 120},
	}}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func (m *scriptedModel) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.prompts)
}
