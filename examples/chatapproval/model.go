package main

import (
	"context"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/tmc/langchaingo/llms"
)

// scripted stands in for a chat model (LangGraph's version's one line,
// init_chat_model): it asks for the weather, then answers with what the
// tool said.
type scripted struct{}

func model() llms.Model { return scripted{} }

func (scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	last := msgs[len(msgs)-1]
	choice := llms.ContentChoice{ToolCalls: []llms.ToolCall{chat.Call("call-1", "get_weather", `{"city":"Paris"}`)}}
	if last.Role == llms.ChatMessageTypeTool {
		var said []string
		for _, p := range last.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				said = append(said, r.Content)
			}
		}
		choice = llms.ContentChoice{Content: "The tool says: " + strings.Join(said, " ")}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&choice}}, nil
}

func (s scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}
