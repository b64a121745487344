// Package remote runs an assistant of another server as a node of a
// graph: LangGraph's RemoteGraph. The other server speaks the Agent
// Server API: a stategraph server (package server) or a LangGraph
// deployment.
//
//	writer := remote.New("https://agents.example.com", "writer",
//		remote.WithHeader("X-Api-Key", key))
//	g.AddNode("write", remote.Node(writer,
//		func(s Trip) (any, error) { return map[string]any{"topic": s.Topic}, nil },
//		func(s Trip, r remote.Result) (state.Update[Trip], error) { … decode r.Values … }))
//
// The node calls POST /threads/{id}/runs/stream on the remote server with
// the input its input function maps from the caller's state, and gives
// the remote thread's final values to its output function, which maps
// them back to an update of the caller's state.
//
// Streaming: when the caller streams WithSubgraphs, the remote run asks
// for the caller's stream modes, and each of its events comes to the
// caller's stream, in the order the remote server sent it, as the event
// of a subgraph of the node (graph.EmitForeign): namespaced "node:task-id"
// after the caller's own namespace, then the remote subgraph's, with the
// remote JSON in an Event as graph.Event.Nested. Without WithSubgraphs
// the caller sees only the node's own events, as for a local subgraph.
//
// Interrupts: a remote thread that stops at an interrupt stops the node
// at an interrupt (graph.Interrupt) whose payload is the remote
// interrupt's value; the caller resumes as for any interrupt
// (graph.Resume, or a command resume through the caller's own server)
// and the answer goes to the remote thread as its run's command
// {resume: answer}. A remote run that asks again stops the caller again:
// the node records which remote interrupt each of the caller's answers
// went to (graph.Durable), so that, running again from its start, it
// gives each question its own answer.
//
// Resuming after a crash: the remote thread's id is derived from the
// task's idempotency key (ThreadID), which is the same each time the task
// runs. A node run again looks at the remote thread's last run before it
// starts anything: it joins a run in progress, reads a finished one,
// continues a failed one from its last checkpoint (a run without input),
// answers an interrupted one with the caller's answer, and starts a run
// with the input only when the thread has none. Runs are started with on_disconnect continue,
// so a caller that dies leaves its remote run running, and with
// multitask_strategy reject, so two callers of one task never run it
// twice at once.
//
// Tracing: each request carries the W3C trace context (traceparent,
// tracestate) of the node's context, through OpenTelemetry's propagation
// API; the library needs no SDK.
package remote
