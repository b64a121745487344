package models_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestModelsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"models":[{"name":"llama3.1:latest"},{"name":"qwen2.5"}]}`))
	}))
	t.Cleanup(ollama.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, tc := range []struct {
		name, kind string
		env        map[string]string
		label      string // want a model with this label
		setup      string // or a *SetupError containing this
	}{
		{"openai without a key", "openai", nil, "", "-model openai needs OPENAI_API_KEY"},
		{"openai", "openai", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://x/v1"}, "OpenAI model gpt-4o-mini at http://x/v1", ""},
		{"ollama with the default model", "ollama", map[string]string{"OLLAMA_HOST": ollama.URL}, "Ollama model llama3.1 at " + ollama.URL, ""},
		{"ollama without the model", "ollama", map[string]string{"OLLAMA_HOST": ollama.URL, "OLLAMA_MODEL": "mistral"}, "", `has no model "mistral" (OLLAMA_MODEL); it has [llama3.1:latest qwen2.5]`},
		{"ollama not answering", "ollama", map[string]string{"OLLAMA_HOST": gone.URL}, "", "cannot reach the Ollama server at " + gone.URL},
		{"unknown", "claude", nil, "", `unknown model "claude": want openai or ollama`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			llm, label, err := models.Named(context.Background(), tc.kind, env(tc.env))
			if tc.setup != "" {
				var se *models.SetupError
				require.ErrorAs(t, err, &se)
				assert.Contains(t, se.Msg, tc.setup)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, llm)
			assert.Equal(t, tc.label, label)
		})
	}
}
