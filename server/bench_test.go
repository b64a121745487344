package server_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// BenchmarkInvokeInProcess is the baseline: the echo graph run by Invoke
// on a new thread each time, memory saver.
func BenchmarkInvokeInProcess(b *testing.B) {
	app := echoGraph(b, memory.New())
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := app.Invoke(ctx, state.Writes(echoInput.Set("hi")), graph.WithThread("t"+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunWaitThroughAPI runs the same graph through the API: one
// POST /threads/{id}/runs/wait per run (with if_not_exists create), over
// loopback HTTP, memory store and saver.
func BenchmarkRunWaitThroughAPI(b *testing.B) {
	h := newHarness(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		code, body := h.do("POST", "/threads/t"+strconv.Itoa(i)+"/runs/wait", `{"assistant_id":"echo","if_not_exists":"create","input":{"input":"hi"}}`)
		if code != 200 {
			b.Fatalf("%d %s", code, body)
		}
	}
}

// BenchmarkStreamFirstValues is the latency of a streamed run: from the
// POST to its first values event, and on to the stream's end.
func BenchmarkStreamFirstValues(b *testing.B) {
	h := newHarness(b)
	var first int64
	for i := 0; b.Loop(); i++ {
		body := `{"assistant_id":"echo","if_not_exists":"create","input":{"input":"hi"},"stream_mode":"values"}`
		start := nanotime()
		resp, err := http.Post(h.http.URL+"/threads/s"+strconv.Itoa(i)+"/runs/stream", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		seen := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if !seen && line == "event: values\n" {
				first += nanotime() - start
				seen = true
			}
		}
		resp.Body.Close()
	}
	b.ReportMetric(float64(first)/float64(b.N), "ns/first-values")
}

var epoch = time.Now()

func nanotime() int64 { return int64(time.Since(epoch)) }

// BenchmarkRunWaitOnPostgres is BenchmarkRunWaitThroughAPI with
// checkpoints and records in PostgreSQL (loopback): runs executed by the
// serving process, and runs executed as worker jobs by another replica
// (the request goes to an API-only replica, the run is a River job a
// second replica works, its events and result come back through the
// events table).
func BenchmarkRunWaitOnPostgres(b *testing.B) {
	b.Run("in-process", func(b *testing.B) { benchRunWait(b, newPostgresHarness(b)) })
	b.Run("workers", func(b *testing.B) { benchRunWait(b, newReplicas(b, 0, 8)[0]) })
}

// BenchmarkRunWaitOnSQLite is BenchmarkRunWaitThroughAPI on the embedded
// default: SQLite checkpoints and records.
func BenchmarkRunWaitOnSQLite(b *testing.B) { benchRunWait(b, newSQLiteHarness(b)) }

func benchRunWait(b *testing.B, h *harness) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		code, body := h.do("POST", "/threads/t"+strconv.Itoa(i)+"/runs/wait", `{"assistant_id":"echo","if_not_exists":"create","input":{"input":"hi"}}`)
		if code != 200 {
			b.Fatalf("%d %s", code, body)
		}
	}
}
