package server_test

import (
	"strconv"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
)

// BenchmarkSearchThreadsSelect searches 1,000 threads that each ran the
// echo graph once (memory saver and records), as the studio lists them:
// every field, then the studio's select (five fields, status among them),
// then record fields only. It reports the answer's bytes and the
// checkpoint reads per search.
func BenchmarkSearchThreadsSelect(b *testing.B) {
	saver := &countingSaver{Saver: memory.New()}
	h := newHarnessOn(b, saver)
	for i := range 1000 {
		code, body := h.do("POST", "/threads/t"+strconv.Itoa(i)+"/runs/wait", `{"assistant_id":"echo","if_not_exists":"create","input":{"input":"hi"}}`)
		if code != 200 {
			b.Fatalf("%d %s", code, body)
		}
	}
	for _, bc := range []struct{ name, body string }{
		{"all", `{"limit":1000}`},
		{"studio", `{"limit":1000,"select":["thread_id","created_at","updated_at","metadata","status"]}`},
		{"records", `{"limit":1000,"select":["thread_id","created_at","updated_at","metadata"]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			before := saver.gets.Load()
			var n int
			for b.Loop() {
				code, body := h.do("POST", "/threads/search", bc.body)
				if code != 200 {
					b.Fatalf("%d %s", code, body)
				}
				n = len(body)
			}
			b.ReportMetric(float64(n), "bytes/answer")
			b.ReportMetric(float64(saver.gets.Load()-before)/float64(b.N), "reads/op")
		})
	}
}
