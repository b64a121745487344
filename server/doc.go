// Package server serves registered graphs over HTTP, speaking LangGraph's
// Agent Server API (the "LangGraph Platform" API) as LangGraph's own
// clients use it — @langchain/langgraph-sdk, langgraph-sdk for Python,
// useStream front ends — so that they work against a Go backend.
//
// A Server is an http.Handler over a list of Graphs, each made by
// Register from a compiled graph with a checkpointer:
//
//	srv, err := server.New([]server.Graph{server.Register("agent", app)},
//		server.WithRecords(records))
//	http.ListenAndServe("127.0.0.1:2024", srv)
//
// Each graph is an assistant (its id is LangGraph's, a UUIDv5 of the graph
// id; the graph id is accepted too), and POST /assistants makes more of
// it, each with its own config and context, kept in versions by the
// Store (AssistantStore); a run's node reads the assistant's config and
// context, merged with the run's, with ConfigOf. Threads are records in a Store
// (WithRecords: MemoryStore, or SQLiteStore for the embedded default) beside the
// graph's checkpoints; a thread's values, state, history and status are
// read from its checkpoints. Runs execute in this process: created in the
// background, waited for, or streamed as server-sent events in LangGraph's
// stream modes (values, updates, messages, messages-tuple, custom, tasks,
// debug, checkpoints, events, tools, lifecycle, with subgraphs); a node
// reports tool calls to the events and tools modes with StreamToolCall.
// A run's command resumes, updates and goes to nodes (command.goto); its
// durability is honoured; a thread's ttl deletes it once expired
// (SweepThreadTTLs); webhooks are retried, signed and kept off loopback
// (WithWebhooks). Each run keeps a bounded log of its
// events so a client can join its stream late or rejoin it after a drop
// with Last-Event-ID; a client that leaves does not stop the run unless
// it asked for on_disconnect cancel.
//
// One run at a time advances a thread: a run for a busy thread is
// rejected (409), queued, or interrupts or rolls back the running one, as
// its multitask_strategy says. Interrupts appear as "__interrupt__" in the
// stream and in the thread's state and are answered with a run whose
// command resumes them, by value or by interrupt id.
//
// # Many replicas
//
// On PostgreSQL (a PostgresStore and checkpoint/postgres), WithWorkers
// makes the server one replica of many: runs are River jobs of package
// worker, executed by any process on the database that has workers; each
// run's events are kept in the database and streamed by any replica; a
// thread is busy, and the multitask strategies and cancels act, across
// replicas; crons are in the database and fire once, from whichever
// replica finds them due first. WithWorkers(0) is an API-only replica.
//
// # The store
//
// WithStore serves LangGraph's store API (/store/items…,
// /store/namespaces) over a store.Store, as the SDKs' client.store uses
// it.
//
// The state of a graph over S travels as a JSON object keyed by the
// schema's field names; a run's input is an object of field writes,
// applied through the fields' reducers. An unknown field or a value of the
// wrong type is a 422 naming the field, and nothing is stored.
//
// See docs/server.md for the endpoints served and those not yet.
package server
