package main

import (
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/nodes"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// setupError is a model that is not configured: the program says what to
// set and exits with exitUsage.
type setupError struct{ msg string }

func (e *setupError) Error() string { return e.msg }

const (
	defaultOpenAIModel = "gpt-4o-mini"
	defaultOllamaHost  = "http://127.0.0.1:11434"
	defaultOllamaModel = "llama3.1"
)

// chatModel returns the model -model names, and a few words about it.
func chatModel(kind string, getenv func(string) string) (llms.Model, string, error) {
	switch kind {
	case "":
		return scripted{}, "offline: a scripted model", nil
	case "openai":
		key := getenv("OPENAI_API_KEY")
		if key == "" {
			return nil, "", &setupError{"-model openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server, OPENAI_MODEL to pick a model, default " + defaultOpenAIModel + "), or run without -model: the example runs offline."}
		}
		model := orDefault(getenv("OPENAI_MODEL"), defaultOpenAIModel)
		opts := []openai.Option{openai.WithToken(key), openai.WithModel(model), openai.WithHTTPClient(nodes.HTTPClient(nil))}
		where := "api.openai.com"
		if base := getenv("OPENAI_BASE_URL"); base != "" {
			opts = append(opts, openai.WithBaseURL(base))
			where = base
		}
		llm, err := openai.New(opts...)
		if err != nil {
			return nil, "", &setupError{fmt.Sprintf("-model openai: %v", err)}
		}
		return llm, fmt.Sprintf("OpenAI model %s at %s", model, where), nil
	case "ollama":
		host := orDefault(getenv("OLLAMA_HOST"), defaultOllamaHost)
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		model := orDefault(getenv("OLLAMA_MODEL"), defaultOllamaModel)
		llm, err := ollama.New(ollama.WithServerURL(strings.TrimRight(host, "/")), ollama.WithModel(model), ollama.WithHTTPClient(nodes.HTTPClient(nil)))
		if err != nil {
			return nil, "", &setupError{fmt.Sprintf("-model ollama: %v", err)}
		}
		return llm, fmt.Sprintf("Ollama model %s at %s", model, host), nil
	}
	return nil, "", &setupError{fmt.Sprintf("unknown model %q: want openai or ollama", kind)}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
