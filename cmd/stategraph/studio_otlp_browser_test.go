package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/telemetry"
)

// Runs of another program (#31): a program writing to the studio's
// database, whose OpenTelemetry exporter (the SDK's otlptracehttp) is
// pointed at the studio by OTEL_EXPORTER_OTLP_ENDPOINT, shows up in the
// open page without a refresh, and its checkpoints show the trace of the
// run that wrote them.
func TestStudioShowsTheRunsAnotherProgramExports(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := browser(t)
	base, dir := startStudioOnNewFiles(t, "otlp")
	drive(t, ctx, "the page is open, with no thread",
		chromedp.Navigate(base+"/studio/"),
		until(`document.body.dataset.ready === "true"`),
		textContains("#thread-count", "0 of 0 threads"),
	)

	// The other program: the essay graph on the same database, traced,
	// exporting as any OpenTelemetry program does.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", base)
	exp, err := otlptracehttp.New(context.Background())
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	other, err := sqlite.Open(filepath.Join(dir, "otlp.db"))
	require.NoError(t, err)
	graphs, err := servegraphs.Graphs(other, servegraphs.Traced(telemetry.New(telemetry.WithTracerProvider(tp))))
	require.NoError(t, err)
	for _, g := range graphs {
		if g.ID() == "essay" {
			for _, err := range g.Run(context.Background(), server.RunInput{Thread: "elsewhere", Input: json.RawMessage(`{"topic": "OTLP"}`), Modes: graph.Values}) {
				require.NoError(t, err)
			}
		}
	}
	require.NoError(t, tp.Shutdown(context.Background()), "the exporter sent the spans")
	require.NoError(t, other.Close())

	drive(t, ctx, "the thread appears, and its checkpoint shows the other program's run",
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="elsewhere"]`)),
		chromedp.Click(chromedp.CSS(`#thread-list button[data-thread="elsewhere"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#trace tr[data-span="run essay"]`)),
		until(`document.querySelectorAll('#trace tr[data-span="task write"]').length === 3`),
		textContains(`#trace tr.mine .span-details`, "this checkpoint"),
		until(`!document.querySelector('#trace caption').textContent.includes("memory")`),
	)
}
