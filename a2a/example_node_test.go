package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/stategraph/stategraph/a2a"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// A caller's node asks a remote A2A agent (here a stategraph server's
// /a2a endpoint), answers its question, and gets its result.
func ExampleNode() {
	// The agent: a graph that asks before it finishes.
	type Q struct {
		Reply string `json:"reply"`
	}
	reply := state.Value("reply", func(q *Q) *string { return &q.Reply })
	agent, _ := graph.New(state.NewSchema(reply)).
		AddNode("ask", func(ctx context.Context, q Q) (state.Update[Q], error) {
			name, err := graph.Interrupt[string](ctx, "your name?")
			if err != nil {
				return state.Update[Q]{}, err
			}
			return state.Writes(reply.Set("hello, " + name)), nil
		}).
		AddEdge(graph.Start, "ask").AddEdge("ask", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	srv, _ := server.New([]server.Graph{server.Register("greeter", agent)}, server.WithA2A())
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// The caller.
	client := a2a.NewClient(hs.URL + "/a2a/greeter")
	app, _ := graph.New(state.NewSchema(reply)).
		AddNode("delegate", a2a.Node(client,
			func(Q) ([]a2a.Part, error) { return []a2a.Part{a2a.DataPart(json.RawMessage(`{}`))}, nil },
			func(q Q, task *a2a.Task) (state.Update[Q], error) {
				var out Q
				err := json.Unmarshal(resultData(task), &out)
				return state.Writes(reply.Set(out.Reply)), err
			})).
		AddEdge(graph.Start, "delegate").AddEdge("delegate", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))

	_, err := app.Invoke(context.Background(), state.Update[Q]{}, graph.WithThread("t1"))
	var ie *graph.InterruptError
	if errors.As(err, &ie) {
		fmt.Println("the agent asks:", ie.Interrupts[0].Value)
	}
	out, err := app.Invoke(context.Background(), state.Update[Q]{}, graph.WithThread("t1"), graph.Resume("Ada"))
	fmt.Println(out.Reply, err)
	// Output:
	// the agent asks: your name?
	// hello, Ada <nil>
}
