package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/remote"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// Greeting is the state of both graphs of the example.
type Greeting struct {
	Name  string `json:"name"`
	Reply string `json:"reply"`
}

var (
	greetName  = state.Value("name", func(g *Greeting) *string { return &g.Name })
	greetReply = state.Value("reply", func(g *Greeting) *string { return &g.Reply })
)

// A caller's node runs the "greeter" assistant of another server.
func Example() {
	// The other server, with its greeter assistant.
	greeter, _ := graph.New(state.NewSchema(greetName, greetReply)).
		AddNode("greet", func(ctx context.Context, g Greeting) (state.Update[Greeting], error) {
			return state.Writes(greetReply.Set("hello, " + g.Name)), nil
		}).
		AddEdge(graph.Start, "greet").AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	srv, _ := server.New([]server.Graph{server.Register("greeter", greeter)})
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// The caller: its "ask" node is the remote assistant.
	rg := remote.New(hs.URL, "greeter")
	app, _ := graph.New(state.NewSchema(greetName, greetReply)).
		AddNode("ask", remote.Node(rg,
			func(g Greeting) (any, error) { return map[string]any{"name": g.Name}, nil },
			func(g Greeting, r remote.Result) (state.Update[Greeting], error) {
				var out Greeting
				if err := json.Unmarshal(r.Values, &out); err != nil {
					return state.Update[Greeting]{}, err
				}
				return state.Writes(greetReply.Set(out.Reply)), nil
			})).
		AddEdge(graph.Start, "ask").AddEdge("ask", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))

	out, err := app.Invoke(context.Background(), state.Writes(greetName.Set("Ada")), graph.WithThread("t1"))
	fmt.Println(out.Reply, err)
	// Output: hello, Ada <nil>
}
