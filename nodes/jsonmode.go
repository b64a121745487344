package nodes

import (
	"encoding/json"
	"slices"

	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// inputSchemaOf returns t's input schema when it is a tool.SchemaTool (a
// tool.Typed), or nil.
func inputSchemaOf(t tools.Tool) json.RawMessage {
	if st, ok := t.(tool.SchemaTool); ok {
		return slices.Clone(st.InputSchema())
	}
	return nil
}

// SupportsJSONMode reports whether m (or the model a ResilientModel wraps)
// is one of langchaingo's clients known to honour llms.WithJSONMode:
// OpenAI's (and any OpenAI-compatible server's) and Ollama's.
func SupportsJSONMode(m llms.Model) bool {
	if r, ok := m.(*ResilientModel); ok {
		m = r.Model
	}
	switch m.(type) {
	case *openai.LLM, *ollama.LLM:
		return true
	}
	return false
}

// jsonMode is the call options asking m for JSON, when it supports it.
func jsonMode(m llms.Model) []llms.CallOption {
	if SupportsJSONMode(m) {
		return []llms.CallOption{llms.WithJSONMode()}
	}
	return nil
}
