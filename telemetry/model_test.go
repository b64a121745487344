package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/telemetry"
)

func TestModelCallIsAGenAISpanWithTokens(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	srv := fakechat.NewWith(t, fakechat.Options{PromptTokens: 42, CompletionTokens: 7}, fakechat.Rule{Reply: "Ship from B."})
	llm, err := openai.New(openai.WithToken("k"), openai.WithBaseURL(srv.URL+"/v1"), openai.WithModel("gpt-4o-mini"), openai.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	m := tr.Model(llm, telemetry.WithModelName("gpt-4o-mini"))

	ctx, parent := tr.tp.Tracer("test").Start(t.Context(), "task respond")
	out, err := m.Call(ctx, "Can O1001 arrive before Friday?")
	parent.End()
	require.NoError(t, err)
	assert.Equal(t, "Ship from B.", out)

	tree := tr.tree()
	span := tree.one(t, "chat gpt-4o-mini")
	assert.Equal(t, "task respond > chat gpt-4o-mini", tree.path(span))
	assert.Equal(t, trace.SpanKindClient, span.SpanKind)
	for k, want := range map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
		"gen_ai.usage.input_tokens": int64(42), "gen_ai.usage.output_tokens": int64(7)} {
		v, ok := attr(span, attribute.Key(k))
		require.True(t, ok, k)
		assert.Equal(t, want, v.AsInterface(), k)
	}

	ms := tr.collect(t)
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricModelCalls], telemetry.KeyOutcome.String("success")))
	n, in := count[int64](ms[telemetry.MetricModelTokens], attribute.String("gen_ai.token.type", "input"))
	assert.Equal(t, uint64(1), n)
	assert.Equal(t, int64(42), in)
	_, outTok := count[int64](ms[telemetry.MetricModelTokens], attribute.String("gen_ai.token.type", "output"))
	assert.Equal(t, int64(7), outTok)
}

func TestModelErrorIsRecorded(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	m := tr.Model(failingModel{}, telemetry.WithProvider("acme"))
	_, err := m.GenerateContent(t.Context(), nil, llms.WithModel("big-1"))
	require.Error(t, err)
	span := tr.tree().one(t, "chat big-1")
	assert.Equal(t, codes.Error, span.Status.Code)
	p, _ := attr(span, attribute.Key("gen_ai.provider.name"))
	assert.Equal(t, "acme", p.AsString())
	assert.Equal(t, int64(1), sum(tr.collect(t)[telemetry.MetricModelCalls], telemetry.KeyOutcome.String("error")))
}

type failingModel struct{}

func (failingModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errors.New("rate limited")
}

func (f failingModel) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, p, o...)
}

func TestToolCallIsASpanAndKeepsSchemaAndSideEffects(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	type quote struct {
		Warehouse string `json:"warehouse"`
	}
	typed := tool.New("shipping_quote", "quotes shipping", func(ctx context.Context, q quote) (string, error) {
		if q.Warehouse == "Z" {
			return "", errors.New("no such warehouse")
		}
		return "standard, +10", nil
	})
	typed.Mutates = true
	w := tr.Tool(typed)
	assert.Equal(t, "shipping_quote", w.Name())
	assert.JSONEq(t, string(typed.InputSchema()), string(w.(tool.SchemaTool).InputSchema()))
	assert.True(t, w.(interface{ SideEffects() bool }).SideEffects())
	plain := tr.Tool(tool.Func{ToolName: "lookup", Fn: func(context.Context, string) (string, error) { return "ok", nil }})
	assert.Nil(t, plain.(tool.SchemaTool).InputSchema(), "a tool without a schema stays one")
	assert.False(t, plain.(interface{ SideEffects() bool }).SideEffects())

	out, err := w.Call(t.Context(), `{"warehouse":"B"}`)
	require.NoError(t, err)
	assert.Equal(t, "standard, +10", out)
	_, err = w.Call(t.Context(), `{"warehouse":"Z"}`)
	require.Error(t, err)

	spans := tr.tree().named("execute_tool shipping_quote")
	require.Len(t, spans, 2)
	name, _ := attr(spans[0], attribute.Key("gen_ai.tool.name"))
	assert.Equal(t, "shipping_quote", name.AsString())
	op, _ := attr(spans[0], attribute.Key("gen_ai.operation.name"))
	assert.Equal(t, "execute_tool", op.AsString())
	assert.Equal(t, codes.Unset, spans[0].Status.Code)
	assert.Equal(t, codes.Error, spans[1].Status.Code)
	ms := tr.collect(t)
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricToolCalls], telemetry.KeyOutcome.String("success")))
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricToolCalls], telemetry.KeyOutcome.String("error")))
}

func TestWrappersAreTheOriginalsWhenOff(t *testing.T) {
	t.Parallel()
	tel := telemetry.New()
	f := failingModel{}
	assert.Equal(t, llms.Model(f), tel.Model(f))
	tl := tool.Func{ToolName: "x"}
	assert.Equal(t, tl, tel.Tool(tl))
}

// cannedModel answers every call with its reply, reporting 12 input and 5
// output tokens as OpenAI's client does.
type cannedModel struct{ reply string }

func (c cannedModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: c.reply,
		GenerationInfo: map[string]any{"PromptTokens": 12, "CompletionTokens": 5}}}}, nil
}

func (c cannedModel) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, p, o...)
}
