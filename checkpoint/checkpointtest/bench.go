package checkpointtest

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// historySize is the number of checkpoints the read benchmarks start
// from: W3 at N=1,000 makes two checkpoints per loop (docs/performance.md, W5).
const historySize = 2000

// snapshotEvery is how often the append channel of the read benchmarks is
// stored whole rather than as a delta, as a runtime keeping delta chains
// short would.
const snapshotEvery = 100

// Bench runs the saver benchmarks against the savers newSaver returns (the
// same factory Run takes). Each sub-benchmark uses a fresh saver and
// thread and reports ns/op and allocs/op:
//
//   - PutStep: a durable step at the saver level: one PutWrites of one
//     write against the head, then one Put of a checkpoint whose one small
//     channel changed.
//   - PutDelta: a Put whose only new blob is a one-element delta of an
//     append channel, while the history grows by one checkpoint per op;
//     blob-B/op is the bytes handed to the saver and heap-B/op the Go heap
//     retained per op (meaningful for in-process backends only).
//   - GetLatest/2000: Get of the latest checkpoint of a 2,000-checkpoint
//     history.
//   - GetHead/2000: GetHead of the same latest checkpoint, for savers
//     that implement checkpoint.HeadGetter.
//   - List/2000: List of all 2,000 checkpoints; first-ns is the time to
//     the first item.
//   - List/2000/skipping: the same List with a SkipValue that skips every
//     field after the first checkpoint's, as the runtime's History asks
//     when each checkpoint's fields can be rebuilt from the newer one.
//
// The figures include building each request (an id and the versions map),
// which the runtime does too.
func Bench(b *testing.B, newSaver func(tb testing.TB) checkpoint.Saver) {
	b.Run("PutStep", func(b *testing.B) { benchPutStep(b, newSaver(b)) })
	b.Run("PutDelta", func(b *testing.B) { benchPutDelta(b, newSaver(b)) })
	b.Run("GetLatest/2000", func(b *testing.B) { benchGetLatest(b, newSaver(b)) })
	b.Run("GetHead/2000", func(b *testing.B) { benchGetHead(b, newSaver(b)) })
	b.Run("List/2000", func(b *testing.B) { benchList(b, newSaver(b), false) })
	b.Run("List/2000/skipping", func(b *testing.B) { benchList(b, newSaver(b), true) })
}

// benchPut puts req, failing the benchmark on error.
func benchPut(b *testing.B, s checkpoint.Saver, req checkpoint.PutRequest) string {
	cfg, err := s.Put(context.Background(), req)
	if err != nil {
		b.Fatalf("put checkpoint %s on thread %q: %v", req.Checkpoint.ID, req.Config.ThreadID, err)
	}
	return cfg.CheckpointID
}

func benchPutStep(b *testing.B, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	head := mustPut(b, s, thread, step{blobs: map[string]checkpoint.Blob{
		"input":    full("1", `"what is the capital of France?"`),
		"plan":     full("1", `["look it up","answer"]`),
		"counter":  full("1", `0`),
		"response": full("1", `""`),
	}})
	version := 1
	writes := []checkpoint.PendingWrite{{Index: 0, Channel: "counter", Value: []byte("1")}}
	b.ReportAllocs()
	for b.Loop() {
		version++
		v := strconv.Itoa(version)
		cfg := checkpoint.Config{ThreadID: thread, CheckpointID: head}
		if err := s.PutWrites(ctx, cfg, "task-"+v, writes); err != nil {
			b.Fatalf("put writes on thread %q checkpoint %s: %v", thread, head, err)
		}
		head = benchPut(b, s, checkpoint.PutRequest{
			Config: cfg,
			Checkpoint: checkpoint.Checkpoint{
				ID:        checkpoint.NewID(),
				CreatedAt: time.Now(),
				Versions:  map[string]string{"input": "1", "plan": "1", "counter": v, "response": "1"},
				New:       map[string]checkpoint.Blob{"counter": {Version: v, Data: []byte(v)}},
			},
			Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: version, Nodes: []string{"add"}},
			ExpectHead: head,
		})
	}
}

func benchPutDelta(b *testing.B, s checkpoint.Saver) {
	thread := newThreadID()
	head := mustPut(b, s, thread, step{blobs: map[string]checkpoint.Blob{
		"input":    full("1", `"go"`),
		"messages": full("1", `[]`),
	}})
	version := 1
	var blobBytes int
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		version++
		v := strconv.Itoa(version)
		data := []byte(`["message ` + v + `"]`)
		blobBytes += len(data)
		head = benchPut(b, s, checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: thread, CheckpointID: head},
			Checkpoint: checkpoint.Checkpoint{
				ID:        checkpoint.NewID(),
				CreatedAt: time.Now(),
				Versions:  map[string]string{"input": "1", "messages": v},
				New:       map[string]checkpoint.Blob{"messages": {Version: v, Data: data, Delta: true, Base: strconv.Itoa(version - 1)}},
			},
			Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: version},
			ExpectHead: head,
		})
	}
	ops := version - 1
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(blobBytes)/float64(ops), "blob-B/op")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(ops), "heap-B/op")
	runtime.KeepAlive(s)
}

// putBenchHistory stores n checkpoints on thread, shaped like W3: an
// input written once, a route that changes every checkpoint and a list
// that grows by one element per checkpoint, stored as a delta except every
// snapshotEvery checkpoints.
func putBenchHistory(b *testing.B, s checkpoint.Saver, thread string, n int) {
	head := ""
	all := []byte(`[`)
	for i := range n {
		v := strconv.Itoa(i + 1)
		elem := `"step ` + v + `"`
		if i > 0 {
			all = append(all, ',')
		}
		all = append(all, elem...)
		items := checkpoint.Blob{Version: v, Data: []byte(`[` + elem + `]`), Delta: true, Base: strconv.Itoa(i)}
		if i%snapshotEvery == 0 {
			items = checkpoint.Blob{Version: v, Data: append(append([]byte(nil), all...), ']')}
		}
		blobs := map[string]checkpoint.Blob{"items": items, "route": {Version: v, Data: []byte(`"execute"`)}}
		if i == 0 {
			blobs["input"] = checkpoint.Blob{Version: "1", Data: []byte(`"loop"`)}
		}
		head = benchPut(b, s, checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: thread, CheckpointID: head},
			Checkpoint: checkpoint.Checkpoint{
				ID:        checkpoint.NewID(),
				CreatedAt: time.Now(),
				Versions:  map[string]string{"input": "1", "items": v, "route": v},
				New:       blobs,
			},
			Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, Nodes: []string{"execute"}},
			ExpectHead: head,
		})
	}
}

func benchGetLatest(b *testing.B, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	putBenchHistory(b, s, thread, historySize)
	cfg := checkpoint.Config{ThreadID: thread}
	tup, err := s.Get(ctx, cfg)
	require.NoError(b, err)
	require.Len(b, tup.Checkpoint.Values["items"].Deltas, (historySize-1)%snapshotEvery)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get(ctx, cfg); err != nil {
			b.Fatalf("get latest of thread %q: %v", thread, err)
		}
	}
}

func benchGetHead(b *testing.B, s checkpoint.Saver) {
	h, ok := s.(checkpoint.HeadGetter)
	if !ok {
		b.Skipf("%T does not implement checkpoint.HeadGetter", s)
	}
	ctx := context.Background()
	thread := newThreadID()
	putBenchHistory(b, s, thread, historySize)
	cfg := checkpoint.Config{ThreadID: thread}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.GetHead(ctx, cfg); err != nil {
			b.Fatalf("get head of thread %q: %v", thread, err)
		}
	}
}

// skipAfterFirst is a SkipValue that skips every channel of every
// checkpoint after the first one it is asked about.
func skipAfterFirst() func(*checkpoint.Tuple, string) bool {
	first := ""
	return func(t *checkpoint.Tuple, _ string) bool {
		if first == "" {
			first = t.Checkpoint.ID
		}
		return t.Checkpoint.ID != first
	}
}

func benchList(b *testing.B, s checkpoint.Saver, skipping bool) {
	ctx := context.Background()
	thread := newThreadID()
	putBenchHistory(b, s, thread, historySize)
	cfg := checkpoint.Config{ThreadID: thread}
	var first time.Duration
	ops := 0
	b.ReportAllocs()
	for b.Loop() {
		ops++
		start := time.Now()
		n := 0
		var opts checkpoint.ListOptions
		if skipping {
			opts.SkipValue = skipAfterFirst()
		}
		for _, err := range s.List(ctx, cfg, opts) {
			if err != nil {
				b.Fatalf("list thread %q: %v", thread, err)
			}
			if n == 0 {
				first += time.Since(start)
			}
			n++
		}
		if n != historySize {
			b.Fatalf("list thread %q: %d checkpoints, want %d", thread, n, historySize)
		}
	}
	b.ReportMetric(float64(first.Nanoseconds())/float64(ops), "first-ns")
}
