package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// setupError is a model that is not configured or not reachable: the
// program says what to set and exits with exitUsage.
type setupError struct{ msg string }

func (e *setupError) Error() string { return e.msg }

// Defaults for the environment variables.
const (
	defaultOpenAIModel = "gpt-4o-mini"
	defaultOllamaHost  = "http://127.0.0.1:11434"
	defaultOllamaModel = "llama3.1"
)

// agentConfig is the delivery case's agent: offline, or with a real model
// planning, replanning and answering. It also describes the setup in a few
// words for the header.
func agentConfig(ctx context.Context, kind string, c *delivery.Case, getenv func(string) string) (nodes.AgentConfig, string, error) {
	cfg := c.AgentConfig()
	if kind == "" {
		return cfg, "offline: template planner, rule-based replanning, template responder, simulated tools", nil
	}
	var llm llms.Model
	var label string
	var err error
	switch kind {
	case "openai":
		llm, label, err = openAIModel(getenv)
	case "ollama":
		llm, label, err = ollamaModel(ctx, getenv)
	default:
		err = &setupError{fmt.Sprintf("unknown model %q: want openai or ollama", kind)}
	}
	if err != nil {
		return cfg, "", err
	}
	// The model takes the planner, the replanner's partial and full
	// replans, and the responder; the case's checker, read-only guard and
	// simulated tools stay.
	cfg.Model = llm
	cfg.Planner, cfg.Replanner, cfg.Responder = nil, nil, nil
	cfg.Budget.MaxWall = 5 * time.Minute // models are slower than templates
	return cfg, label + " plans, replans and answers; simulated tools", nil
}

// openAIModel is an OpenAI (or OpenAI-compatible) chat model.
func openAIModel(getenv func(string) string) (llms.Model, string, error) {
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, "", &setupError{"-model openai needs OPENAI_API_KEY.\n" +
			"  Set it (and OPENAI_BASE_URL for an OpenAI-compatible server, OPENAI_MODEL to pick a model, default " + defaultOpenAIModel + "),\n" +
			"  or run without -model: the example runs offline."}
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
}

// ollamaModel is a model served by Ollama. It checks that the server
// answers and has the model, so a missing server is reported up front
// rather than as a planner failure.
func ollamaModel(ctx context.Context, getenv func(string) string) (llms.Model, string, error) {
	host := orDefault(getenv("OLLAMA_HOST"), defaultOllamaHost)
	if !strings.Contains(host, "://") {
		host = "http://" + host // Ollama's own convention: OLLAMA_HOST=127.0.0.1:11434
	}
	host = strings.TrimRight(host, "/")
	model := orDefault(getenv("OLLAMA_MODEL"), defaultOllamaModel)
	have, err := ollamaModels(ctx, host)
	if err != nil {
		return nil, "", &setupError{fmt.Sprintf("-model ollama: cannot reach the Ollama server at %s (OLLAMA_HOST): %v\n"+
			"  Start it (ollama serve) and pull a model (ollama pull %s), or run without -model: the example runs offline.", host, err, model)}
	}
	if !slices.Contains(have, model) && !slices.Contains(have, model+":latest") {
		return nil, "", &setupError{fmt.Sprintf("-model ollama: the server at %s has no model %q (OLLAMA_MODEL); it has %v.\n"+
			"  Pull it (ollama pull %s) or set OLLAMA_MODEL to one of them.", host, model, have, model)}
	}
	llm, err := ollama.New(ollama.WithServerURL(host), ollama.WithModel(model), ollama.WithHTTPClient(nodes.HTTPClient(nil)))
	if err != nil {
		return nil, "", &setupError{fmt.Sprintf("-model ollama: %v", err)}
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
	var names []string
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
