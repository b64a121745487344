package studio_test

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
	"github.com/stategraph/stategraph/studio"
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
