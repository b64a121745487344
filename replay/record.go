package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/graph"
)

// Kind says what was called.
type Kind string

// The kinds of a recorded call.
const (
	KindModel Kind = "model"
	KindTool  Kind = "tool"
)

// Tokens are the tokens a model call used, as its provider reported them
// (zero when it did not).
type Tokens struct {
	Prompt     int `json:"prompt,omitempty"`
	Completion int `json:"completion,omitempty"`
}

// Call is one recorded model or tool call.
type Call struct {
	Kind Kind `json:"kind"`
	// Name is the tool's name (empty for a model call).
	Name string `json:"name,omitempty"`
	// Node, Step and Send locate the task that made the call; Seq is its
	// position among the task's recorded calls (set by Load).
	Node string `json:"node"`
	Step int    `json:"step"`
	Send int    `json:"send"`
	Seq  int    `json:"-"`
	// RunID and Attempt say which run and try of the task made it.
	RunID   string `json:"run_id,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// Request is the model's messages (llms.MessageContent) or the tool's
	// input (a JSON string); Response the model's *llms.ContentResponse
	// or the tool's output (a JSON string). Error is the call's error.
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
	Started  time.Time       `json:"started"`
	Took     time.Duration   `json:"took"`
	Tokens   Tokens          `json:"tokens,omitzero"`
}

// Model returns m with its calls recorded with the thread of the node that
// makes them (graph.Record), and answered from the recording under Run.
// Outside Run it calls m; without a checkpointer it records nothing.
func Model(m llms.Model) llms.Model { return &model{inner: m} }

type model struct{ inner llms.Model }

func (m *model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	req, err := json.Marshal(msgs)
	if err != nil {
		return nil, fmt.Errorf("replay: encode a model request: %w", err)
	}
	if p := playerOf(ctx); p != nil {
		return p.model(ctx, req, msgs, opts)
	}
	start := time.Now()
	resp, callErr := m.inner.GenerateContent(ctx, msgs, opts...)
	c := Call{Kind: KindModel, Request: req, Started: start.UTC(), Took: time.Since(start)}
	if callErr != nil {
		c.Error = callErr.Error()
	} else {
		if c.Response, err = encodeResponse(resp); err != nil {
			return resp, fmt.Errorf("replay: encode a model response: %w", err)
		}
		c.Tokens = tokensOf(resp)
	}
	if err := save(ctx, c); err != nil {
		return resp, err
	}
	return resp, callErr
}

func (m *model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// Tool returns t with its calls recorded with the thread of the node that
// makes them, and answered from the recording under Run. It keeps the
// wrapped tool's input schema and side effects.
func Tool(t tools.Tool) *RecordedTool { return &RecordedTool{Tool: t} }

// RecordedTool is a tool whose calls are recorded; make one with Tool.
type RecordedTool struct{ tools.Tool }

// Call implements tools.Tool.
func (t *RecordedTool) Call(ctx context.Context, input string) (string, error) {
	req, _ := json.Marshal(input)
	if p := playerOf(ctx); p != nil {
		return p.tool(ctx, t.Tool.Name(), req, func(ctx context.Context) (string, error) { return t.Tool.Call(ctx, input) })
	}
	start := time.Now()
	out, callErr := t.Tool.Call(ctx, input)
	c := Call{Kind: KindTool, Name: t.Tool.Name(), Request: req, Started: start.UTC(), Took: time.Since(start)}
	if callErr != nil {
		c.Error = callErr.Error()
	} else {
		c.Response, _ = json.Marshal(out)
	}
	if err := save(ctx, c); err != nil {
		return out, err
	}
	return out, callErr
}

// Unwrap returns the wrapped tool.
func (t *RecordedTool) Unwrap() tools.Tool { return t.Tool }

// InputSchema is the wrapped tool's input schema when it has one.
func (t *RecordedTool) InputSchema() json.RawMessage {
	if s, ok := t.Tool.(interface{ InputSchema() json.RawMessage }); ok {
		return s.InputSchema()
	}
	return nil
}

// SideEffects reports whether the wrapped tool says it has side effects.
func (t *RecordedTool) SideEffects() bool {
	s, ok := t.Tool.(interface{ SideEffects() bool })
	return ok && s.SideEffects()
}

// save stores c as a record of the node's task.
func save(ctx context.Context, c Call) error {
	info, ok := graph.RunInfo(ctx)
	if !ok {
		return nil
	}
	c.Node, c.Step, c.Send, c.RunID, c.Attempt = info.Node, info.Step, info.Send, info.RunID, info.Attempt
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("replay: encode the record of a %s call: %w", c.Kind, err)
	}
	if _, err := graph.Record(ctx, data); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// tokensOf reads the token counts providers put in GenerationInfo.
func tokensOf(resp *llms.ContentResponse) Tokens {
	var t Tokens
	if resp == nil {
		return t
	}
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		for _, k := range []string{"PromptTokens", "prompt_tokens", "input_tokens"} {
			if n, ok := toInt(ch.GenerationInfo[k]); ok {
				t.Prompt += n
				break
			}
		}
		for _, k := range []string{"CompletionTokens", "completion_tokens", "output_tokens"} {
			if n, ok := toInt(ch.GenerationInfo[k]); ok {
				t.Completion += n
				break
			}
		}
	}
	return t
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	}
	return 0, false
}
