// Package checkpointtest is the conformance suite for checkpoint.Saver
// backends. Every backend in this module (memory, sqlite, postgres) runs it,
// and a third-party backend should too: passing it means the graph runtime
// can rely on the backend for resume, time travel and one-writer-per-thread.
//
// A backend's test file is a few lines. It hands RunHarness a Harness
// whose New returns a ready saver (registering any cleanup with
// tb.Cleanup) and, for a backend that stores outside the process, whose
// Reopen opens a second saver on the same storage, as a restarted process
// would:
//
//	func TestConformance(t *testing.T) {
//		checkpointtest.RunHarness(t, checkpointtest.Harness{
//			New: func(tb testing.TB) checkpoint.Saver {
//				return open(tb, filepath.Join(tb.TempDir(), "cp.db"))
//			},
//			Reopen: func(tb testing.TB, s checkpoint.Saver) checkpoint.Saver {
//				return open(tb, s.(*mybackend.Saver).Path())
//			},
//			IsLimit: func(err error) bool { return errors.Is(err, mybackend.ErrTooLarge) },
//		})
//	}
//
//	func BenchmarkSaver(b *testing.B) {
//		checkpointtest.Bench(b, func(tb testing.TB) checkpoint.Saver { … })
//	}
//
// Run(t, newSaver) is RunHarness with New only. The suite calls New once
// per subtest and runs subtests in parallel. Every subtest uses fresh,
// random thread ids, so New may return savers that share one database.
// Optional capabilities (checkpoint.Copier, checkpoint.Pruner) are tested
// when the saver implements them and skipped otherwise; the cases of what
// survives a reopen, and holds across two savers of one storage, are
// skipped without Reopen. IsLimit names the refusals a backend documents
// (input beyond its database's limits): the cases with such input accept
// them when the refused Put stored nothing.
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
//     context.Canceled; a Put or PutWrites cancelled part-way stores all
//     or nothing, settled when it returns.
//   - Thread ids and namespaces of any text (SQL and LIKE metacharacters,
//     JSON, unicode, kilobytes long) round-trip and never match a
//     neighbour's; NUL, invalid UTF-8 and an empty thread id are refused
//     (storing nothing) or round-trip.
//   - Metadata filters compare as checkpoint.Metadata.Matches does, for
//     every JSON kind, across pages, with Before and Limit; maps and
//     slices of returned tuples are the caller's.
//   - Pending writes order by task id in byte order; within a call and
//     across calls (and savers) a non-negative index keeps the first
//     write and a negative one the last.
//   - Concurrent first puts, writers racing on one head and copies racing
//     onto one thread: exactly one wins, the rest get ErrConflict, and
//     the history is one chain.
//
// Bench measures, at the saver level, the costs the runtime's figures rest
// on (docs/performance.md): a durable step (one Put of a checkpoint whose one small
// channel changed plus one PutWrites), a put of an append-only channel
// stored as a delta while history grows, the latest state after 2,000
// checkpoints, and the full history of 2,000 checkpoints (with the time to
// the first item reported as first-ns).
package checkpointtest
