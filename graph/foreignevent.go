package graph

import "context"

// ForeignEvent is an event of a graph a node runs that this process does
// not run itself (a graph on another server, say), for EmitForeign: it
// reaches the caller's stream as the event of a subgraph of the node
// would.
type ForeignEvent struct {
	// Mode is the event's mode: Values, Updates, Custom, Messages or
	// Tasks.
	Mode Mode
	// Namespace is the event's namespace below the node's: "" for the
	// graph the node runs, "child:task-id" for a subgraph of it, and so on
	// ("|" between levels).
	Namespace string
	// Step, Node and TaskID name the foreign task, when the event has one.
	Step   int
	Node   string
	TaskID string
	// Custom is the payload of a Custom event.
	Custom any
	// Chunk and MessageID are a Messages event's token chunk and its
	// message's id.
	Chunk     []byte
	MessageID string
	// Task describes a Tasks event.
	Task *TaskEvent
	// Payload is the event as its source has it; the stream's Event
	// carries it in Nested (its State and Update, of the caller's type,
	// stay zero).
	Payload any
}

// SubgraphModes returns the modes in which the events of a graph the node
// of ctx runs reach the stream of the node's run: the run's modes when it
// streams WithSubgraphs, else zero (and zero outside a node). A node that
// relays a foreign graph's events asks the foreign graph for these.
func SubgraphModes(ctx context.Context) Mode {
	return forwarding(scopeOf(ctx))
}

// EmitForeign sends ev to the stream of the run the node of ctx belongs
// to, as an event of a subgraph of the node: its Namespace is the node's
// ("node:task-id" after the run's own namespace, as for a graph the node
// invokes), then ev.Namespace, and its Nested is ev.Payload. It does
// nothing unless ev.Mode is among SubgraphModes(ctx). Like Emit, it is
// safe to call from goroutines the node starts, until the node returns,
// and the events of one node keep their order.
func EmitForeign(ctx context.Context, ev ForeignEvent) {
	sc := scopeOf(ctx)
	if forwarding(sc)&ev.Mode == 0 {
		return
	}
	ns := sc.node + ":" + sc.taskID
	if p := sc.namespace(); p != "" {
		ns = p + "|" + ns
	}
	if ev.Namespace != "" {
		ns += "|" + ev.Namespace
	}
	sc.send(eventOut{sub: foreignOut{h: eventHeader{mode: ev.Mode, namespace: ns, node: ev.Node, task: ev.TaskID, step: ev.Step,
		taskEv: ev.Task, custom: ev.Custom, chunk: ev.Chunk, msgID: ev.MessageID}, payload: ev.Payload}})
}

// foreignOut is a ForeignEvent on its way to the run's stream.
type foreignOut struct {
	h       eventHeader
	payload any
}

func (f foreignOut) header() eventHeader { return f.h }

// foreignEvent is the Event of a stream over S that carries f.
func foreignEvent[S any](f foreignOut) Event[S] {
	ev := eventOf[S](f)
	ev.Nested = f.payload
	return ev
}
