// Command stategraph inspects a checkpoint database written by stategraph
// graphs: the threads it holds, each thread's history, the state at any
// checkpoint, what changed between two checkpoints and the path a thread
// took. It can also delete a thread, prune its old checkpoints, or verify
// that what is stored is what was written. It needs
// no knowledge of the program that wrote the database: values are shown as
// the JSON they were stored as.
//
// Usage:
//
//	stategraph [-db PATH | -dsn DSN [-schema NAME]] [-json] COMMAND [ARGS]
//
// The database is a SQLite file (-db PATH, which must exist) or a
// PostgreSQL database (-dsn DSN, or the environment variable
// STATEGRAPH_POSTGRES_DSN; -schema names the schema of the tables when the
// application used postgres.WithSchema). With -json every command prints
// JSON for scripts instead of tables for people.
//
// Commands:
//
//	threads                               every thread: last step, status, checkpoints, namespaces, updated time
//	history THREAD [-ns NS]               one line per checkpoint, newest first
//	state THREAD [CHECKPOINT] [-ns NS]    values, next nodes, interrupts and task errors
//	diff THREAD A B [-ns NS]              the fields that changed from checkpoint A to B
//	mermaid THREAD [CHECKPOINT] [-ns NS]  the path the thread took, as a Mermaid flowchart
//	delete THREAD                         delete every checkpoint of the thread
//	prune THREAD --keep N                 keep the newest N checkpoints of the thread
//	verify [THREAD...]                    check every row and link of the threads (default: all)
//
// A CHECKPOINT is a checkpoint id as history prints it, or any part of
// one that names a single checkpoint of the thread: the exact id first,
// then the only id that ends with it, then the only id that contains it
// (ids are UUIDv7: a thread's share their first characters). The -json
// flag may also follow the command.
//
// The status of a thread is done, pending, interrupted or error. A run
// stopped by Ctrl-C leaves it pending; a task error that ends with
// "context canceled", which older versions recorded for such a run, is
// read as a cancellation, not a failure: "pending NODES (cancelled)".
//
// Subgraphs (graph.AddSubgraph) checkpoint in namespaces of their own
// within the parent's thread; threads counts them, and lists them with
// -json. history, state, diff and mermaid read the root graph's
// namespace, or with -ns NS a subgraph's: NS is a namespace as threads
// lists it, or a prefix of one (at the same depth) that matches a single
// namespace, such as the subgraph node's name. delete and prune act on
// every namespace.
//
// verify runs checkpoint.Verifier's Verify on each thread (every thread
// threads lists, without arguments): every checkpoint, value and pending
// write of every namespace against its checksum, and every link of the
// history. It prints one line per thread, ok or DAMAGED with what is
// wrong, and exits 1 when any thread is damaged.
//
// Exit status: 0 on success, 1 when the command failed (a missing
// database, a wrong DSN, an unknown thread, namespace or checkpoint, damage
// found by verify), 2
// for a usage error (an unknown command, a missing argument, a bad
// --keep).
//
// See docs/inspector.md for examples.
package main
