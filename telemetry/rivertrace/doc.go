// Package rivertrace carries a trace across River's job queue, so that a
// trace started by an HTTP request or by the code that enqueues a run
// continues in the worker process that runs it.
//
// Middleware is a River middleware (a rivertype.JobInsertMiddleware and
// rivertype.WorkerMiddleware). At insert, when the context carries a span,
// it starts a producer span "insert <kind>" and writes its W3C trace
// context into each job's metadata (traceparent, tracestate). At work, it
// reads it back and runs the job in a consumer span "process <kind>", a
// child of the insert span: the graph run the job executes (package
// telemetry's run span) is a child of it, in the enqueuer's trace. A job
// inserted without a span (a run re-queued by the worker that took over a
// dead worker's runs) starts a trace of its own, and its run links to the
// run it continues through the checkpoint metadata package telemetry
// writes.
//
// With package worker:
//
//	tel := telemetry.New(telemetry.WithTracerProvider(tp))
//	client, err := worker.New(pool, reg, rivertrace.WorkerOption(tel))
//
// WorkerOption uses worker.WithRiverConfig; a program that sets its own
// River configuration appends New(tel) to river.Config.Middleware itself.
package rivertrace
