// Package models makes the real chat models the examples offer with
// -model openai|ollama, from the environment, through langchaingo's
// clients (and nodes.HTTPClient's timeouts). A model that is not
// configured, or an Ollama server that does not answer or lacks the
// model, is a *SetupError saying what to set: the examples print it and
// exit with their usage code. The offline models stay in each example.
package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/stategraph/stategraph/nodes"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// SetupError is a model that is not configured or not reachable; its text
// says what to set.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// Defaults for the environment variables.
const (
	DefaultOpenAIModel = "gpt-4o-mini"
	DefaultOllamaHost  = "http://127.0.0.1:11434"
	DefaultOllamaModel = "llama3.1"
)

// Named returns the model kind names ("openai" or "ollama") and a few
// words about it for a header.
func Named(ctx context.Context, kind string, getenv func(string) string) (llms.Model, string, error) {
	switch kind {
	case "openai":
		return OpenAI(getenv)
	case "ollama":
		return Ollama(ctx, getenv)
	}
	return nil, "", &SetupError{fmt.Sprintf("unknown model %q: want openai or ollama", kind)}
}

// OpenAI is an OpenAI (or OpenAI-compatible) chat model: OPENAI_API_KEY,
// OPENAI_BASE_URL, OPENAI_MODEL.
func OpenAI(getenv func(string) string) (llms.Model, string, error) {
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, "", &SetupError{"-model openai needs OPENAI_API_KEY.\n" +
			"  Set it (and OPENAI_BASE_URL for an OpenAI-compatible server, OPENAI_MODEL to pick a model, default " + DefaultOpenAIModel + "),\n" +
			"  or run without -model: the example runs offline."}
	}
	model := orDefault(getenv("OPENAI_MODEL"), DefaultOpenAIModel)
	opts := []openai.Option{openai.WithToken(key), openai.WithModel(model), openai.WithHTTPClient(nodes.HTTPClient(nil))}
	where := "api.openai.com"
	if base := getenv("OPENAI_BASE_URL"); base != "" {
		opts = append(opts, openai.WithBaseURL(base))
		where = base
	}
	llm, err := openai.New(opts...)
	if err != nil {
		return nil, "", &SetupError{fmt.Sprintf("-model openai: %v", err)}
	}
	return llm, fmt.Sprintf("OpenAI model %s at %s", model, where), nil
}

// Ollama is a model served by Ollama: OLLAMA_HOST, OLLAMA_MODEL. It checks
// that the server answers and has the model, so a missing server is
// reported up front rather than as the first call's failure.
func Ollama(ctx context.Context, getenv func(string) string) (llms.Model, string, error) {
	host := orDefault(getenv("OLLAMA_HOST"), DefaultOllamaHost)
	if !strings.Contains(host, "://") {
		host = "http://" + host // Ollama's own convention: OLLAMA_HOST=127.0.0.1:11434
	}
	host = strings.TrimRight(host, "/")
	model := orDefault(getenv("OLLAMA_MODEL"), DefaultOllamaModel)
	have, err := ollamaModels(ctx, host)
	if err != nil {
		return nil, "", &SetupError{fmt.Sprintf("-model ollama: cannot reach the Ollama server at %s (OLLAMA_HOST): %v\n"+
			"  Start it (ollama serve) and pull a model (ollama pull %s), or run without -model: the example runs offline.", host, err, model)}
	}
	if !slices.Contains(have, model) && !slices.Contains(have, model+":latest") {
		return nil, "", &SetupError{fmt.Sprintf("-model ollama: the server at %s has no model %q (OLLAMA_MODEL); it has %v.\n"+
			"  Pull it (ollama pull %s) or set OLLAMA_MODEL to one of them.", host, model, have, model)}
	}
	llm, err := ollama.New(ollama.WithServerURL(host), ollama.WithModel(model), ollama.WithHTTPClient(nodes.HTTPClient(nil)))
	if err != nil {
		return nil, "", &SetupError{fmt.Sprintf("-model ollama: %v", err)}
	}
	return llm, fmt.Sprintf("Ollama model %s at %s", model, host), nil
}

// ollamaModels lists the models an Ollama server has (GET /api/tags).
func ollamaModels(ctx context.Context, host string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/tags: %s", resp.Status)
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, errors.New("GET /api/tags: not an Ollama server")
	}
	names := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		names = append(names, m.Name)
	}
	return names, nil
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
