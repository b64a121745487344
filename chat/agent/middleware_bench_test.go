package agent_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// toolThenText calls the tool once, then answers, for every turn.
type toolThenText struct{}

func (toolThenText) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	c := llms.ContentChoice{Content: "It is sunny in Oslo; mail ann@example.com for more."}
	if last := msgs[len(msgs)-1]; last.Role != llms.ChatMessageTypeTool {
		c = llms.ContentChoice{ToolCalls: []llms.ToolCall{chat.Call("call_1", "get_weather", `{"city":"Oslo"}`)}}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&c}}, nil
}

func (m toolThenText) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// BenchmarkAgentTurnMiddleware is one turn (two model calls, one tool
// call) without middleware and with eight entries, none of which has
// anything to do but look: the cost of the chain itself.
func BenchmarkAgentTurnMiddleware(b *testing.B) {
	weather := tool.New("get_weather", "the weather", func(_ context.Context, a weatherArgs) (string, error) { return "sunny in " + a.City, nil })
	for _, bc := range []struct {
		name string
		mws  []agent.Middleware
	}{
		{"none", nil},
		{"eight", []agent.Middleware{
			agent.HumanReview{}, agent.CallLimit{RunModelCalls: 100}, agent.ModelFallback{}, agent.Redact{},
			agent.Summarize{MaxTokens: 1 << 20}, agent.ToolRetry{}, agent.ToolOutputLimit{},
			agent.ClearToolResults(100, "[cleared]"),
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := agent.New[agent.NoResponse](toolThenText{}, []tools.Tool{weather}, agent.WithMiddleware(bc.mws...))
			app, err := a.Graph.Compile()
			if err != nil {
				b.Fatal(err)
			}
			in := a.Input(chat.Human("Weather in Oslo?"))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := app.Invoke(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
