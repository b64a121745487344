package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// An assistant made through the API carries its own config and context;
// the node reads them, merged with the run's, with server.ConfigOf, as a
// LangGraph node reads config["configurable"] and runtime.context.
func ExampleConfigOf() {
	greetTone := func(ctx context.Context, g Greeting) (state.Update[Greeting], error) {
		cfg, _ := server.ConfigOf(ctx)
		line := fmt.Sprintf("%v, %s (for %v)", cfg.Configurable["greeting"], g.Name, cfg.Context["user"])
		return state.Writes(greetLines.Set([]string{line})), nil
	}
	app, err := graph.New(state.NewSchema(greetName, greetLines)).
		AddNode("greet", greetTone).
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
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(path, body string) string {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(out))
	}
	post("/assistants", `{"assistant_id": "6f1c0d2e-0000-4000-8000-000000000001", "graph_id": "greeter",
		"config": {"configurable": {"greeting": "hi"}}, "context": {"user": "ann"}}`)
	fmt.Println(post("/runs/wait", `{"assistant_id": "6f1c0d2e-0000-4000-8000-000000000001", "input": {"name": "Ada"}}`))
	fmt.Println(post("/runs/wait", `{"assistant_id": "6f1c0d2e-0000-4000-8000-000000000001", "input": {"name": "Ada"},
		"config": {"configurable": {"greeting": "hello"}}}`))
	// Output:
	// {"lines":["hi, Ada (for ann)"],"name":"Ada"}
	// {"lines":["hello, Ada (for ann)"],"name":"Ada"}
}
