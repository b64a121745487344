package state

// Write is one typed write to one field, made by a Key's Set or Overwrite.
// The zero Write is invalid.
type Write[S any] struct {
	key       *base[S]
	value     any
	overwrite bool
}

// Field returns the name of the field the write sets.
func (w Write[S]) Field() string {
	if w.key == nil {
		return ""
	}
	return w.key.name
}

// IsOverwrite reports whether the write bypasses the field's reducer.
func (w Write[S]) IsOverwrite() bool { return w.overwrite }

// Value returns the written value.
func (w Write[S]) Value() any { return w.value }

// Send asks the runtime to run Node once in the next step with Arg as its
// input, instead of the graph's state: LangGraph's Send. Each Send is its
// own task, so one node can be sent many different inputs in one step.
type Send[S any] struct {
	Node string
	Arg  S
	// Item is the argument of a node that takes its own type rather than
	// the state (graph.AddArgNode), set by graph.SendArg; nil otherwise.
	Item any
}

// Update is what a node returns: writes to apply at the end of the step,
// and optionally where to go next (LangGraph's Command): the nodes in Goto
// and the Sends run in the next step, in addition to the node's edges.
type Update[S any] struct {
	Writes []Write[S]
	Goto   []string
	Sends  []Send[S]
}

// Writes returns an Update of the given writes.
func Writes[S any](ws ...Write[S]) Update[S] { return Update[S]{Writes: ws} }

// IsZero reports whether the update writes nothing and goes nowhere.
func (u Update[S]) IsZero() bool {
	return len(u.Writes) == 0 && len(u.Goto) == 0 && len(u.Sends) == 0
}
