// Subgraphstream runs a subgraph over a state type of its own as a node
// of its parent, mapped in and out, and streams the events of both.
// docs/langgraph.md sets it beside LangGraph Python's version.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

type Parent struct{ Foo string }

type Child struct{ Bar string }

var (
	parent = state.FromStruct[Parent]()
	child  = state.FromStruct[Child]()
)

func main() {
	sub, err := graph.New(child).
		AddNode("sub_1", func(ctx context.Context, c Child) (state.Update[Child], error) {
			return child.Edit(c, func(c *Child) { c.Bar += "baz" }), nil
		}).
		AddNode("sub_2", func(ctx context.Context, c Child) (state.Update[Child], error) {
			return child.Edit(c, func(c *Child) { c.Bar += "!" }), nil
		}).
		AddEdge(graph.Start, "sub_1").AddEdge("sub_1", "sub_2").Compile()
	if err != nil {
		log.Fatal(err)
	}
	g := graph.New(parent).AddEdge(graph.Start, "node_1")
	graph.AddSubgraphMapped(g, "node_1", sub,
		func(p Parent) state.Update[Child] { return child.Edit(Child{}, func(c *Child) { c.Bar = p.Foo }) },
		func(p Parent, c Child) state.Update[Parent] { return parent.Edit(p, func(p *Parent) { p.Foo = c.Bar }) })
	app, err := g.Compile()
	if err != nil {
		log.Fatal(err)
	}
	input := parent.Edit(Parent{}, func(p *Parent) { p.Foo = "foo" })
	for ev, err := range app.Stream(context.Background(), input, graph.WithSubgraphs()) {
		if err != nil {
			log.Fatal(err)
		}
		ns, _, _ := strings.Cut(ev.Namespace, ":")
		if c, ok := ev.Nested.(graph.Event[Child]); ok {
			fmt.Printf("[%s] %+v\n", ns, c.State)
		} else {
			fmt.Printf("[%s] %+v\n", ns, ev.State)
		}
	}
}
