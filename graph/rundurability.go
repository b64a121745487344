package graph

// WithRunDurability sets when this call's checkpoints are stored,
// instead of the graph's WithDurability: LangGraph's durability argument
// of a call. A subgraph follows its parent run's, as with WithDurability.
func WithRunDurability(d Durability) RunOption {
	return runFunc(func(o *runOptions) { o.durability, o.hasDurability = d, true })
}
