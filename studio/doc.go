// Package studio is a local web page for watching, inspecting, forking
// and resuming the threads of stategraph graphs: LangGraph Studio's
// debugging views, served by your own binary.
//
// The page is plain HTML, CSS and JavaScript modules embedded in the
// binary (go:embed): it loads nothing from any other host and needs no
// build step. It talks only to the HTTP API of package server
// (LangGraph's Agent Server API), so what the page shows is what any
// LangGraph client of the same server sees:
//
//   - threads, with their status, graph and update time, filtered by
//     status or searched by id, kept current by polling (new threads and
//     new checkpoints of the open thread appear without a refresh);
//   - a thread's timeline: every checkpoint with its source, step, the
//     nodes it applied, its time, errors and interrupts, forks drawn as
//     branches, walked with the arrow keys;
//   - a checkpoint's state as a collapsible tree, and what changed since
//     its parent, path by path;
//   - the graph drawn as SVG from GET /assistants/{id}/graph, with the
//     path the thread took and, while a run streams, the running node;
//   - a thread whose state has a messages field as a conversation, its
//     tool calls and results folded under their AI message, with a box
//     that sends a human message and tool reviews answered inline;
//   - the trace of the run that wrote a checkpoint (runs, steps, tasks,
//     checkpoint writes, model and tool calls), when the server records
//     the spans of package telemetry in a Traces (WithTraces), also those
//     another program exports to it over OTLP/HTTP (Traces.OTLP);
//   - the assistants with their config, the long-term store's namespaces
//     and items (searched by prefix, filter or query) and the crons;
//   - actions: start a run with input, from a form generated from the
//     graph's input schema or as JSON (stopping before or after nodes),
//     answer an interrupt or continue a paused thread, edit the state as
//     a node and fork from any checkpoint, replay from a checkpoint,
//     cancel the streaming run.
//
// Handler serves the page alone, for a program that serves the API
// elsewhere on the same origin; Beside serves the page at /studio/ next
// to an API handler at every other path, as `stategraph studio` does:
//
//	srv, err := server.New(graphs, server.WithRecords(records))
//	http.ListenAndServe("127.0.0.1:2024", studio.Beside(srv))
//
// The page has no authentication of its own: it can do whatever the API
// lets it, so serve it where the API is served, on loopback unless the
// API authenticates.
package studio
