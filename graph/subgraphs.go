package graph

// Subgraphs returns the nodes of the graph that are compiled graphs
// (AddSubgraph, AddSubgraphMapped) by node name, each as the subgraph's
// *Compiled[T], T its own state type (S for AddSubgraph): what LangGraph's
// get_subgraphs walks, for servers and tools that describe a graph.
func (c *Compiled[S]) Subgraphs() map[string]any {
	out := map[string]any{}
	for _, n := range c.order {
		if sub := c.nodes[n].sub; sub != nil {
			out[n] = sub
		}
	}
	return out
}
