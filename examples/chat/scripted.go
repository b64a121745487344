package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// scripted is the offline model: it calls get_weather for each city it
// knows in the last human message and calculate for a sum in it, and
// answers from the tools' results, streaming its replies word by word.
type scripted struct{}

var sum = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*([-+*/x×])\s*(-?\d+(?:\.\d+)?)`)

// GenerateContent implements llms.Model.
func (scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	choice := reply(msgs)
	if opts.StreamingFunc != nil && choice.Content != "" {
		for _, c := range strings.SplitAfter(choice.Content, " ") {
			if err := opts.StreamingFunc(ctx, []byte(c)); err != nil {
				return nil, err
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// Call implements llms.Model.
func (m scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func reply(msgs []llms.MessageContent) *llms.ContentChoice {
	if len(msgs) == 0 {
		return &llms.ContentChoice{Content: "Hello!"}
	}
	last := msgs[len(msgs)-1]
	if last.Role == llms.ChatMessageTypeTool {
		return &llms.ContentChoice{Content: answer(msgs)}
	}
	text := ""
	for _, p := range last.Parts {
		if t, ok := p.(llms.TextContent); ok {
			text += t.Text
		}
	}
	var calls []llms.ToolCall
	call := func(name string, args any) {
		b, _ := json.Marshal(args)
		calls = append(calls, llms.ToolCall{ID: fmt.Sprintf("call_%d_%d", len(msgs), len(calls)+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(b)}})
	}
	lower := strings.ToLower(text)
	for _, city := range []string{"Oslo", "Paris", "Tokyo", "Lima"} {
		if strings.Contains(lower, strings.ToLower(city)) {
			call("get_weather", weatherArgs{City: city})
		}
	}
	if m := sum.FindStringSubmatch(text); m != nil {
		var a calcArgs
		fmt.Sscan(m[1], &a.A)
		fmt.Sscan(m[3], &a.B)
		a.Op = map[string]string{"x": "*", "×": "*"}[m[2]]
		if a.Op == "" {
			a.Op = m[2]
		}
		call("calculate", a)
	}
	if len(calls) > 0 {
		return &llms.ContentChoice{ToolCalls: calls, StopReason: "tool_calls"}
	}
	return &llms.ContentChoice{Content: "I can tell you the weather in Oslo, Paris, Tokyo or Lima, and do sums such as 12 * 7. What would you like to know?"}
}

// answer sums up the tool answers after the last AI message.
func answer(msgs []llms.MessageContent) string {
	var got []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == llms.ChatMessageTypeTool; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				got = append([]string{r.Content}, got...)
			}
		}
	}
	var ok, failed []string
	for _, g := range got {
		if strings.HasPrefix(g, "Error:") || strings.HasPrefix(g, "The reviewer rejected") {
			failed = append(failed, strings.ReplaceAll(g, "\n", " "))
		} else {
			ok = append(ok, g)
		}
	}
	var b strings.Builder
	if len(ok) > 0 {
		fmt.Fprintf(&b, "Here is what I found: %s.", strings.Join(ok, "; "))
	}
	if len(failed) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "I could not do everything: %s", strings.Join(failed, "; "))
	}
	return b.String()
}
