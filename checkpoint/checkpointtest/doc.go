// Package checkpointtest is the conformance suite for checkpoint.Saver
// backends. Every backend in this module (memory, sqlite, postgres) runs it,
// and a third-party backend should too: passing it means the graph runtime
// can rely on the backend for resume, time travel and one-writer-per-thread.
//
// A backend's test file is a few lines. It hands Run a factory that returns
// a ready saver; the factory registers any cleanup with tb.Cleanup:
//
//	func TestConformance(t *testing.T) {
//		checkpointtest.Run(t, func(tb testing.TB) checkpoint.Saver {
//			s, err := mybackend.Open(tb.TempDir())
//			require.NoError(tb, err)
//			tb.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
//	func BenchmarkSaver(b *testing.B) {
//		checkpointtest.Bench(b, func(tb testing.TB) checkpoint.Saver { … })
//	}
//
// Run calls the factory once per subtest and runs subtests in parallel.
// Every subtest uses fresh, random thread ids, so a factory may return
// savers that share one database. Optional capabilities (checkpoint.Copier,
// checkpoint.Pruner) are tested when the saver implements them and skipped
// otherwise.
//
// What the suite pins, beyond the doc comments of checkpoint.Saver:
//   - Data and pending write values are arbitrary bytes (a Serializer may
//     compress or encrypt), and a zero-length value reads back as zero
//     length (nil and empty are not told apart).
//   - Metadata compares after a JSON round trip (so Extra numbers may come
//     back as float64); CreatedAt compares with time.Time.Equal at
//     microsecond precision, for any instant (the zero time, the Unix
//     epoch, years before 1678 and after 2262 included).
//   - A delta with an empty Base extends the empty value: its chain reads
//     back with no snapshot. A new blob with an empty Version is stored
//     under the checkpoint's version of its channel; Put refuses one with
//     neither, storing nothing.
//   - PutWrites with an empty CheckpointID is ErrNotFound.
//   - Prune with keep 0 deletes every checkpoint of the thread; a negative
//     keep is an error. CopyThread onto a thread that has checkpoints in any
//     namespace, or onto its source, is ErrConflict.
//   - Get and List fill Checkpoint.Values for every channel in Versions,
//     rebuilding delta chains as the newest snapshot plus the deltas after
//     it, oldest first; Checkpoint.New is nil on read.
//   - PutWrites stamps each write with its taskID argument.
//   - ErrNotFound and ErrConflict errors name the thread in their message.
//   - A call with a cancelled context either succeeds (a backend without
//     I/O may ignore the context) or fails with an error wrapping
//     context.Canceled; a Put that fails stored nothing.
//
// Bench measures, at the saver level, the costs the runtime's figures rest
// on (docs/performance.md): a durable step (one Put of a checkpoint whose one small
// channel changed plus one PutWrites), a put of an append-only channel
// stored as a delta while history grows, the latest state after 2,000
// checkpoints, and the full history of 2,000 checkpoints (with the time to
// the first item reported as first-ns).
package checkpointtest
