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

// SupportsJSONMode reports whether m is one of langchaingo's clients known
// to honour llms.WithJSONMode: OpenAI's (and any OpenAI-compatible
// server's) and Ollama's. It looks through a ResilientModel and through any
// wrapper with an Unwrap() llms.Model method (telemetry.Model's, say).
func SupportsJSONMode(m llms.Model) bool {
	for range 16 { // wrappers of wrappers, but never a cycle forever
		if r, ok := m.(*ResilientModel); ok {
			m = r.Model
		} else if w, ok := m.(interface{ Unwrap() llms.Model }); ok {
			m = w.Unwrap()
		} else {
			break
		}
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
