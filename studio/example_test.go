package studio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/studio"
	"github.com/stategraph/stategraph/telemetry"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type greeting struct{ Name, Text string }

var (
	name = state.Value("name", func(g *greeting) *string { return &g.Name })
	text = state.Value("text", func(g *greeting) *string { return &g.Text })
)

// Serve a graph over LangGraph's API with the studio beside it: the page
// at /studio/, the API at every other path, on one origin.
func ExampleBeside() {
	app, err := graph.New(state.NewSchema(name, text)).
		AddNode("greet", func(ctx context.Context, g greeting) (state.Update[greeting], error) {
			return state.Writes(text.Set("Hello, " + g.Name)), nil
		}).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	srv, err := server.New([]server.Graph{server.Register("greeter", app)})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	// In a program: http.ListenAndServe("127.0.0.1:2024", studio.Beside(srv)).
	web := httptest.NewServer(studio.Beside(srv))
	defer web.Close()

	page, err := http.Get(web.URL + "/studio/")
	if err != nil {
		panic(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	fmt.Println(page.StatusCode, strings.Contains(string(html), "<title>stategraph studio</title>"))

	run, err := http.Post(web.URL+"/runs/wait", "application/json", strings.NewReader(`{"assistant_id": "greeter", "input": {"name": "Ada"}}`))
	if err != nil {
		panic(err)
	}
	out, _ := io.ReadAll(run.Body)
	run.Body.Close()
	fmt.Print(string(out))
	// Output:
	// 200 true
	// {"name":"Ada","text":"Hello, Ada"}
}

// Record the runtime's spans for the page's trace view: package
// telemetry's observer on an OpenTelemetry SDK TracerProvider whose
// processor is a studio.Traces, served beside the page.
func ExampleWithTraces() {
	traces := studio.NewTraces(100)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(traces))
	defer tp.Shutdown(context.Background())
	tel := telemetry.New(telemetry.WithTracerProvider(tp))
	app, err := graph.New(state.NewSchema(name, text)).
		AddNode("greet", func(ctx context.Context, g greeting) (state.Update[greeting], error) {
			return state.Writes(text.Set("Hello, " + g.Name)), nil
		}).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(memory.New()), graph.WithName("greeter"), graph.WithObserver(tel.Observer()))
	if err != nil {
		panic(err)
	}
	srv, err := server.New([]server.Graph{server.Register("greeter", app)})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	web := httptest.NewServer(studio.Beside(srv, studio.WithTraces(traces)))
	defer web.Close()

	run, err := http.Post(web.URL+"/threads", "application/json", strings.NewReader(`{"thread_id": "t1"}`))
	if err != nil {
		panic(err)
	}
	run.Body.Close()
	run, err = http.Post(web.URL+"/threads/t1/runs/wait", "application/json", strings.NewReader(`{"assistant_id": "greeter", "input": {"name": "Ada"}}`))
	if err != nil {
		panic(err)
	}
	run.Body.Close()
	res, err := http.Get(web.URL + "/studio/traces?thread=t1")
	if err != nil {
		panic(err)
	}
	var out struct {
		Runs []struct {
			Spans []struct {
				Name string `json:"name"`
			} `json:"spans"`
		} `json:"runs"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		panic(err)
	}
	res.Body.Close()
	for _, s := range out.Runs[0].Spans {
		fmt.Println(s.Name)
	}
	// Output:
	// run greeter
	// checkpoint input
	// checkpoint loop
	// step
	// task greet
	// checkpoint loop
}

// Show another program's runs: its OpenTelemetry exporter (the SDK's
// otlptracehttp, pointed at the studio, as OTEL_EXPORTER_OTLP_ENDPOINT
// does) sends its spans to Beside's OTLP receiver, and the page's trace
// view reads them like the studio's own.
func ExampleTraces_OTLP() {
	traces := studio.NewTraces(100)
	srv, err := server.New(nil)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	web := httptest.NewServer(studio.Beside(srv, studio.WithTraces(traces)))
	defer web.Close()

	// The other program: a graph traced by package telemetry, exporting over OTLP/HTTP.
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(web.URL+studio.OTLPPath))
	if err != nil {
		panic(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	tel := telemetry.New(telemetry.WithTracerProvider(tp))
	app, err := graph.New(state.NewSchema(name, text)).
		AddNode("greet", func(ctx context.Context, g greeting) (state.Update[greeting], error) {
			return state.Writes(text.Set("Hello, " + g.Name)), nil
		}).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(memory.New()), graph.WithName("greeter"), graph.WithObserver(tel.Observer()))
	if err != nil {
		panic(err)
	}
	if _, err := app.Invoke(context.Background(), state.Writes(name.Set("Ada")), graph.WithThread("elsewhere")); err != nil {
		panic(err)
	}
	if err := tp.Shutdown(context.Background()); err != nil { // sends the batch
		panic(err)
	}

	res, err := http.Get(web.URL + "/studio/traces?thread=elsewhere")
	if err != nil {
		panic(err)
	}
	var out struct {
		Runs []struct {
			Graph string `json:"graph"`
			Spans []struct {
				Name string `json:"name"`
			} `json:"spans"`
		} `json:"runs"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		panic(err)
	}
	res.Body.Close()
	fmt.Println(out.Runs[0].Graph, len(out.Runs[0].Spans), "spans, first", out.Runs[0].Spans[0].Name)
	// Output:
	// greeter 6 spans, first run greeter
}
