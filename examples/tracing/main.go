// Tracing is examples/planexecute exporting OpenTelemetry spans: the
// invocation, its runs, steps, tasks, checkpoint writes, model and tool
// calls, as docs/observability.md describes them.
//
//	go run ./examples/tracing                      # spans as JSON on standard error
//	go run ./examples/tracing -spans spans.json    # spans as JSON in a file
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 go run ./examples/tracing   # to a collector
//
// Its flags are planexecute's (-model, -thread, -resume, -approve, -db,
// -mermaid, -delay, -rounds) plus -spans. Standard output is the same
// progress and answer as planexecute's, then one line saying where the
// spans went. The OTLP/HTTP exporter reads the rest of its configuration
// (headers, timeout, compression, certificates) from the standard
// OTEL_EXPORTER_OTLP_* variables; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (default "planexecute").
//
// It is a program of its own so that the exporters' modules (the SDK,
// OTLP, gRPC's and protobuf's) are downloaded and linked only by the
// program that exports spans: examples/planexecute, the README's first
// command, needs none of them.
package main

import (
	"flag"
	"io"
	"os"

	"github.com/stategraph/stategraph/examples/internal/planexec"
)

func main() { planexec.Exit(program(os.Stderr, os.Getenv)) }

// program is planexecute with a tracer and the -spans flag.
func program(stderr io.Writer, getenv func(string) string) planexec.Program {
	tr := &tracer{getenv: getenv, stderr: stderr}
	return planexec.Program{
		Name:  "tracing",
		About: "It exports OpenTelemetry spans of the run: as JSON to standard error or -spans FILE, or over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&tr.file, "spans", "", "write the spans as JSON to `FILE` (default: standard error); ignored when OTEL_EXPORTER_OTLP_ENDPOINT\n(or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names a collector")
		},
		Tracer: tr,
	}
}
