// Package chatdemo is the chat assistant `stategraph serve` and
// `stategraph studio` serve as "chat": the prebuilt ReAct agent
// (chat/agent) with the tools of examples/chat (get_weather, calculate),
// on a scripted model offline or on a real one (-model openai|ollama).
// A calculate call waits for a person's review (an interrupt answered
// with toolnode decisions); get_weather runs at once.
//
// examples/chat runs the same scripted model and tools in a terminal.
package chatdemo

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// Prompt is the assistant's system prompt.
const Prompt = "You are a helpful assistant. Use get_weather for the weather in a city and calculate for arithmetic; answer briefly."

// Agent returns the chat assistant on model (Scripted{} offline).
func Agent(model llms.Model) *agent.Agent[agent.NoResponse] {
	return AgentWithTools(model, Tools(nil))
}

// Model returns the model -model names: "" is Scripted, "openai" reads
// OPENAI_API_KEY (and OPENAI_MODEL, OPENAI_BASE_URL), "ollama" OLLAMA_HOST
// and OLLAMA_MODEL. The string says which model it is.
func Model(kind string, getenv func(string) string) (llms.Model, string, error) {
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	switch kind {
	case "":
		return Scripted{}, "a scripted model, offline", nil
	case "openai":
		key := getenv("OPENAI_API_KEY")
		if key == "" {
			return nil, "", fmt.Errorf("-model openai needs OPENAI_API_KEY (and optionally OPENAI_MODEL, OPENAI_BASE_URL)")
		}
		name := or(getenv("OPENAI_MODEL"), "gpt-4o-mini")
		opts := []openai.Option{openai.WithToken(key), openai.WithModel(name)}
		if base := getenv("OPENAI_BASE_URL"); base != "" {
			opts = append(opts, openai.WithBaseURL(base))
		}
		m, err := openai.New(opts...)
		return m, "OpenAI model " + name, err
	case "ollama":
		host := or(getenv("OLLAMA_HOST"), "http://127.0.0.1:11434")
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		name := or(getenv("OLLAMA_MODEL"), "llama3.1")
		m, err := ollama.New(ollama.WithServerURL(host), ollama.WithModel(name))
		return m, "Ollama model " + name + " at " + host, err
	}
	return nil, "", fmt.Errorf("-model %q: want openai or ollama", kind)
}

// weather is the canned weather of the cities the assistant knows.
var weather = map[string]string{
	"oslo":  "sunny, 21°C",
	"paris": "light rain, 16°C",
	"tokyo": "cloudy, 24°C",
	"lima":  "fog, 18°C",
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city, such as Oslo"`
}

type calcArgs struct {
	A  float64 `json:"a"`
	Op string  `json:"op" jsonschema:"enum=+,enum=-,enum=*,enum=/"`
	B  float64 `json:"b"`
}

// Tools are get_weather (canned weather of Oslo, Paris, Tokyo and Lima)
// and calculate (a op b). before, if not nil, is called with a tool's name
// as each call starts; an error from it is the call's error (examples/chat
// blocks a tool there for its tests).
func Tools(before func(ctx context.Context, name string) error) []tools.Tool {
	if before == nil {
		before = func(context.Context, string) error { return nil }
	}
	return []tools.Tool{
		tool.New("get_weather", "Today's weather in a city.", func(ctx context.Context, a weatherArgs) (string, error) {
			if err := before(ctx, "get_weather"); err != nil {
				return "", err
			}
			w, ok := weather[strings.ToLower(strings.TrimSpace(a.City))]
			if !ok {
				return "", fmt.Errorf("no weather for %q (known: Oslo, Paris, Tokyo, Lima)", a.City)
			}
			return fmt.Sprintf("%s: %s", a.City, w), nil
		}),
		tool.New("calculate", "Arithmetic on two numbers: a op b.", func(ctx context.Context, a calcArgs) (string, error) {
			if err := before(ctx, "calculate"); err != nil {
				return "", err
			}
			var r float64
			switch a.Op {
			case "+":
				r = a.A + a.B
			case "-":
				r = a.A - a.B
			case "*":
				r = a.A * a.B
			case "/":
				if a.B == 0 {
					return "", fmt.Errorf("division by zero")
				}
				r = a.A / a.B
			default:
				return "", fmt.Errorf("unknown operator %q (want + - * /)", a.Op)
			}
			return fmt.Sprintf("%g %s %g = %g", a.A, a.Op, a.B, r), nil
		}),
	}
}

// Scripted is the offline model: it calls get_weather for each city it
// knows in the last human message and calculate for a sum in it, answers
// from the tools' results, and streams its replies word by word.
type Scripted struct{}

var sum = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*([-+*/x×])\s*(-?\d+(?:\.\d+)?)`)

// GenerateContent implements llms.Model.
func (Scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
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
func (m Scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
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
