// Package telemetry traces and measures graphs with OpenTelemetry: a span
// per run, superstep, task and checkpoint write, GenAI spans for model and
// tool calls, metrics, span links between the runs of a thread, and a
// log/slog handler whose records carry the run's ids and the trace's.
//
// The package imports the OpenTelemetry API only. It does nothing until
// given a provider: the program brings the SDK and an exporter
// (go.opentelemetry.io/otel/sdk/trace with OTLP, stdout, …) and hands the
// providers to New:
//
//	tel := telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp))
//	app, err := g.Compile(graph.WithCheckpointer(saver), graph.WithObserver(tel.Observer()))
//
// # Spans
//
// Telemetry is a graph.MetadataObserver. Each call (Invoke, Stream) is a
// span "run <graph>" (a child of the span in the call's context, such as
// an HTTP request's); each superstep a "step" below it; each task a "task
// <node>" below its step, in whose context the node runs; each checkpoint
// write a "checkpoint <source>". A subgraph's run is a child of its
// task's span. A node's interrupt is an event of its task span
// (EventInterrupt); a static interrupt before or after a node one of the
// run's. Errors are recorded on the span that failed and its parents,
// with the error status; an interrupt is not an error. The attribute keys
// are the Key constants, all "stategraph.*"; docs/observability.md draws
// the tree and lists them.
//
// # Runs of a thread
//
// Each run writes its trace context (W3C traceparent and tracestate) into
// the metadata of every checkpoint it stores (CheckpointMetadata). The run
// that continues the thread — the resume after a crash, a cancellation or
// an error, the answer to an interrupt, the next input — reads it back and
// links its span to the run it continues (a span link with
// stategraph.link=previous_run). Each call stays a trace of its own.
//
// # Models and tools
//
// Model wraps a langchaingo llms.Model and Tool a tools.Tool (keeping a
// nodes/tool.SchemaTool's schema and a plan.SideEffecter's side effects):
// each call is a span following the GenAI semantic conventions ("chat
// <model>", "execute_tool <name>"; gen_ai.operation.name,
// gen_ai.provider.name, gen_ai.request.model, gen_ai.usage.input_tokens
// and output_tokens from the response's GenerationInfo). Called inside a
// node, they nest under its task span. Package telemetry/agenttrace
// instruments the agent of package nodes in one call, and records its
// replans as events.
//
// # Metrics
//
// With WithMeterProvider: runs started and ended by outcome, run, step,
// node and checkpoint-write latencies, checkpoint sizes, node retries,
// model calls, tokens and latency (gen_ai.client.token.usage,
// gen_ai.client.operation.duration), tool calls by outcome and their
// latency. The Metric constants name them.
//
// # Logs
//
// NewHandler wraps a slog.Handler: records written with a context inside
// a node carry the thread, run, step, node and task, and any record whose
// context has a span carries trace_id and span_id.
//
// # Workers
//
// Package telemetry/rivertrace carries the trace context through River's
// job metadata, so that a run enqueued under a span (an HTTP request's)
// continues that trace in the worker process that runs it.
//
// # Cost
//
// With no provider, Observer returns nil and graph.WithObserver(nil) adds
// nothing to a run. With tracing, each step costs its spans (a step, its
// tasks, its checkpoint); see BenchmarkStepOverhead and docs/observability.md
// for figures.
package telemetry
