package replay_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

// qa is the state of the tests' graph: a question, the facts looked up
// for it, and the answer.
type qa struct {
	Question string
	Facts    []string
	Answer   string
}

var (
	question = state.Value("question", func(s *qa) *string { return &s.Question })
	facts    = state.Append("facts", func(s *qa) *[]string { return &s.Facts })
	answer   = state.Value("answer", func(s *qa) *string { return &s.Answer })
	schema   = state.NewSchema(question, facts, answer)
)

// scripted is a model that answers with its replies in turn, reporting
// tokens as OpenAI does.
type scripted struct {
	replies []string
	calls   atomic.Int64
}

func (m *scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	n := int(m.calls.Add(1)) - 1
	if n >= len(m.replies) {
		return nil, fmt.Errorf("scripted: no reply %d", n+1)
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:        m.replies[n],
		StopReason:     "stop",
		GenerationInfo: map[string]any{"PromptTokens": 12, "CompletionTokens": 3},
	}}}, nil
}

func (m *scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// offline is a model and a tool that must not be called: a replay answers
// from the recording.
type offline struct{ t *testing.T }

func (o offline) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	o.t.Error("the replay called the model")
	return nil, errors.New("offline")
}

func (o offline) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, o, prompt, opts...)
}

// offlineTool is the lookup tool that must not be called.
type offlineTool struct{ t *testing.T }

func (o offlineTool) Name() string        { return "lookup" }
func (o offlineTool) Description() string { return "looks facts up" }
func (o offlineTool) Call(context.Context, string) (string, error) {
	o.t.Error("the replay called the tool")
	return "", errors.New("offline")
}

// lookup is the real tool: it knows one fact per subject.
type lookup struct{ calls atomic.Int64 }

func (l *lookup) Name() string        { return "lookup" }
func (l *lookup) Description() string { return "looks facts up" }
func (l *lookup) Call(_ context.Context, in string) (string, error) {
	l.calls.Add(1)
	return "fact about " + strings.ToLower(in), nil
}

// qaGraph is Start → research → write: research looks the question up
// with tool (transformed by shape), write asks model with prompt.
func qaGraph(prompt string, model llms.Model, tool tools.Tool, shape func(string) string) *graph.StateGraph[qa] {
	m, tl := replay.Model(model), replay.Tool(tool)
	research := func(ctx context.Context, s qa) (state.Update[qa], error) {
		out, err := tl.Call(ctx, s.Question)
		if err != nil {
			return state.Update[qa]{}, err
		}
		return state.Writes(facts.Set([]string{shape(out)})), nil
	}
	write := func(ctx context.Context, s qa) (state.Update[qa], error) {
		out, err := llms.GenerateFromSinglePrompt(ctx, m, fmt.Sprintf("%s\nFacts: %s\nQuestion: %s", prompt, strings.Join(s.Facts, "; "), s.Question))
		if err != nil {
			return state.Update[qa]{}, err
		}
		return state.Writes(answer.Set(out)), nil
	}
	return graph.New(schema).AddNode("research", research).AddNode("write", write).
		AddEdge(graph.Start, "research").AddEdge("research", "write")
}

func same(s string) string { return s }
