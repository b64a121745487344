package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/deliverytest"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// spanNames are the span names the offline run must show: the
// invocation, the run, a step, each node's task, a checkpoint, and the
// tool calls of the plan.
var spanNames = []string{
	"planexecute", "run planexecute", "step", "task planner", "task execute", "task replan", "task respond",
	"checkpoint input", "checkpoint loop", "execute_tool order_lookup", "execute_tool stock_check", "execute_tool shipping_quote",
}

// jsonSpanNames are the names of the spans of the exporter's JSON.
func jsonSpanNames(t *testing.T, out string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\t"Name": (".*"),$`).FindAllStringSubmatch(out, -1) {
		var name string
		require.NoError(t, json.Unmarshal([]byte(m[1]), &name))
		names[name] = true
	}
	return names
}

func TestSpansGoToStandardErrorNotWithTheAnswer(t *testing.T) {
	t.Parallel()
	res := execute(t, command(t, t.TempDir()), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	deliverytest.RequireRecommendation(t, res.Stdout)
	assert.Contains(t, res.Stdout, "The spans went to standard error")
	assert.NotContains(t, res.Stdout, `"Name":`, "standard output is the run's, as planexecute prints it")
	names := jsonSpanNames(t, res.Stderr)
	for _, want := range spanNames {
		assert.True(t, names[want], "no span %q in the output", want)
	}
	assert.Contains(t, res.Stderr, `"stategraph.replan"`, "the replan is an event")
}

func TestSpansFlagWritesThemToAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "spans.json")
	res := execute(t, command(t, dir, "-spans", file), "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "The spans went to "+file+".")
	assert.NotContains(t, res.Stdout+res.Stderr, `"Name":`)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	names := jsonSpanNames(t, string(b))
	for _, want := range spanNames {
		assert.True(t, names[want], "no span %q in %s", want, file)
	}
}

// collector is an OTLP/HTTP trace receiver keeping the spans it is sent.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "want an OTLP/HTTP protobuf export on /v1/traces", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func TestTraceFlagSendsOTLPWhenTheEnvironmentNamesACollector(t *testing.T) {
	t.Parallel()
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	cmd := command(t, t.TempDir(), "-thread", "traced")
	cmd.Env = env("OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	res := execute(t, cmd, "")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "The spans went to the OTLP/HTTP endpoint "+srv.URL)
	assert.NotContains(t, res.Stdout+res.Stderr, `"Name":`, "nothing printed when a collector takes the spans")

	col.mu.Lock()
	defer col.mu.Unlock()
	names := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		names[s.Name] = s
	}
	for _, want := range spanNames {
		assert.Contains(t, names, want)
	}
	run := names["run planexecute"]
	require.NotNil(t, run)
	assert.Equal(t, names["planexecute"].SpanId, run.ParentSpanId, "the run is a child of the invocation's span")
	thread := ""
	for _, kv := range run.Attributes {
		if kv.Key == "stategraph.thread.id" {
			thread = kv.GetValue().GetStringValue()
		}
	}
	assert.Equal(t, "traced", thread)
}

func TestTraceFlagShowsModelCallsUnderTheirTasks(t *testing.T) {
	t.Parallel()
	chat := fakechat.NewWith(t, fakechat.Options{Key: "test"},
		fakechat.Rule{Marker: "You are a planner", Reply: deliverytest.PlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliverytest.ReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliverytest.AnswerReply},
	)
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	cmd := command(t, t.TempDir(), "-model", "openai")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+chat.URL, "OPENAI_MODEL=test", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+srv.URL+"/v1/traces")
	res := execute(t, cmd, "")
	require.Equal(t, exitOK, res.Code, res.Stderr)

	col.mu.Lock()
	defer col.mu.Unlock()
	byID := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		byID[string(s.SpanId)] = s
	}
	var parents []string
	for _, s := range col.spans {
		if s.Name != "chat test" {
			continue
		}
		parents = append(parents, byID[string(s.ParentSpanId)].GetName())
		attrs := map[string]int64{}
		for _, kv := range s.Attributes {
			attrs[kv.Key] = kv.GetValue().GetIntValue()
		}
		assert.Equal(t, int64(100), attrs["gen_ai.usage.input_tokens"])
		assert.Equal(t, int64(20), attrs["gen_ai.usage.output_tokens"])
	}
	slices.Sort(parents)
	assert.Equal(t, []string{"task planner", "task replan", "task respond"}, parents, "each model call nests under the node that made it")
}

func TestTraceOfAResumedThreadLinksToTheRunItContinues(t *testing.T) {
	t.Parallel()
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	dir := t.TempDir()
	run := func(stdin string, code int, args ...string) {
		t.Helper()
		cmd := command(t, dir, append([]string{"-thread", "t-linked"}, args...)...)
		cmd.Env = env("OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL)
		res := execute(t, cmd, stdin)
		require.Equal(t, code, res.Code, res.Stderr)
	}
	run("n\n", exitDeclined, "-approve") // pauses before respond
	col.mu.Lock()
	var first *tracepb.Span
	for _, s := range col.spans {
		if s.Name == "run planexecute" {
			first = s
		}
	}
	col.spans = nil
	col.mu.Unlock()
	require.NotNil(t, first)

	run("y\n", exitOK, "-resume")
	col.mu.Lock()
	defer col.mu.Unlock()
	var resumed []*tracepb.Span
	for _, s := range col.spans {
		if s.Name == "run planexecute" {
			resumed = append(resumed, s)
		}
	}
	require.Len(t, resumed, 1, "the approved resume is one run")
	require.Len(t, resumed[0].Links, 1)
	assert.Equal(t, first.SpanId, resumed[0].Links[0].SpanId, "the resumed run links to the run that paused")
	assert.Equal(t, first.TraceId, resumed[0].Links[0].TraceId)
	assert.NotEqual(t, first.TraceId, resumed[0].TraceId, "each invocation is a trace of its own")
}
