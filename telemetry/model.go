package telemetry

import (
	"context"
	"errors"
	"path"
	"reflect"
	"time"

	"github.com/stategraph/stategraph/internal/usage"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Model is a langchaingo llms.Model whose calls are traced as GenAI
// client spans ("chat <model>", gen_ai.* attributes: operation, provider,
// request model, input and output tokens read from the response's
// GenerationInfo, finish reasons) and counted in the model metrics. The
// span is a child of the span in the call's context: inside a node, the
// node's task span. Make one with Telemetry.Model.
type Model struct {
	llms.Model
	t        *Telemetry
	provider string
	name     string
}

var _ llms.Model = (*Model)(nil)

// ModelOption configures a Model.
type ModelOption func(*Model)

// WithProvider sets gen_ai.provider.name (default: read from the model's
// Go package: "openai" for langchaingo's llms/openai, "ollama",
// "anthropic", …).
func WithProvider(name string) ModelOption { return func(m *Model) { m.provider = name } }

// WithModelName sets gen_ai.request.model when a call does not name its
// model (llms.WithModel): langchaingo's clients keep the model they were
// made with to themselves.
func WithModelName(name string) ModelOption { return func(m *Model) { m.name = name } }

// Model wraps m so that its calls are traced and counted. With tracing
// and metrics off it returns m itself.
func (t *Telemetry) Model(m llms.Model, opts ...ModelOption) llms.Model {
	if !t.tracing && !t.metered {
		return m
	}
	w := &Model{Model: m, t: t, provider: providerOf(m)}
	for _, o := range opts {
		o(w)
	}
	return w
}

// Unwrap returns the wrapped model.
func (m *Model) Unwrap() llms.Model { return m.Model }

// Call implements llms.Model through GenerateContent, so it is traced
// once.
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// GenerateContent implements llms.Model: it calls the wrapped model in a
// span of its own.
func (m *Model) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var co llms.CallOptions
	for _, o := range options {
		o(&co)
	}
	model := co.Model
	if model == "" {
		model = m.name
	}
	base := []attribute.KeyValue{semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(m.provider)}
	if model != "" {
		base = append(base, semconv.GenAIRequestModel(model))
	}
	span := trace.SpanFromContext(ctx)
	if m.t.tracing {
		attrs := base
		if co.MaxTokens > 0 {
			attrs = append(attrs, semconv.GenAIRequestMaxTokens(co.MaxTokens))
		}
		if co.Temperature > 0 {
			attrs = append(attrs, semconv.GenAIRequestTemperature(co.Temperature))
		}
		name := "chat"
		if model != "" {
			name += " " + model
		}
		ctx, span = m.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	}
	began := time.Now()
	resp, err := m.Model.GenerateContent(ctx, messages, options...)
	in, out, reasons := usageOf(resp)
	if m.t.metered {
		mctx := context.WithoutCancel(ctx)
		oattrs := append(base[:len(base):len(base)], KeyOutcome.String(callOutcome(err)))
		m.t.m.modelCalls.Add(mctx, 1, metric.WithAttributes(oattrs...))
		m.t.m.modelDur.Record(mctx, time.Since(began).Seconds(), metric.WithAttributes(withError(base, err)...))
		if resp != nil {
			m.t.m.tokens.Record(mctx, int64(in), metric.WithAttributes(append(base[:len(base):len(base)], semconv.GenAITokenTypeInput)...))
			m.t.m.tokens.Record(mctx, int64(out), metric.WithAttributes(append(base[:len(base):len(base)], semconv.GenAITokenTypeOutput)...))
		}
	}
	if m.t.tracing {
		if resp != nil {
			span.SetAttributes(semconv.GenAIUsageInputTokens(in), semconv.GenAIUsageOutputTokens(out))
			if len(reasons) > 0 {
				span.SetAttributes(semconv.GenAIResponseFinishReasons(reasons...))
			}
		}
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		}
		span.End()
	}
	return resp, err
}

// usageOf reads the input and output tokens of resp (usage.Of), summed
// over choices, and the choices' stop reasons.
func usageOf(resp *llms.ContentResponse) (in, out int, reasons []string) {
	in, out, _ = usage.Of(resp)
	if resp == nil {
		return in, out, nil
	}
	for _, c := range resp.Choices {
		if c != nil && c.StopReason != "" {
			reasons = append(reasons, c.StopReason)
		}
	}
	return in, out, reasons
}

// providers maps langchaingo's client packages to gen_ai.provider.name
// values where the two differ.
var providers = map[string]string{
	"googleai": "gcp.gemini", "vertex": "gcp.vertex_ai", "bedrock": "aws.bedrock",
	"mistral": "mistral_ai", "cohere": "cohere", "anthropic": "anthropic", "openai": "openai",
}

// providerOf names the provider of m from its Go package.
func providerOf(m llms.Model) string {
	t := reflect.TypeOf(m)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.PkgPath() == "" {
		return "unknown"
	}
	pkg := path.Base(t.PkgPath())
	if p, ok := providers[pkg]; ok {
		return p
	}
	return pkg
}

func callOutcome(err error) string {
	if err != nil {
		return OutcomeError
	}
	return OutcomeSuccess
}

// withError adds error.type to attrs when err is set.
func withError(attrs []attribute.KeyValue, err error) []attribute.KeyValue {
	if err == nil {
		return attrs
	}
	return append(attrs[:len(attrs):len(attrs)], semconv.ErrorTypeKey.String(errorType(err)))
}

// errorType is the error.type of err: "canceled" and "timeout" for the
// context's errors, else the error's Go type.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return reflect.TypeOf(err).String()
}
