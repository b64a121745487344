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
//	stategraph [-db PATH | -dsn DSN [-schema NAME]] [-key-file PATH] [-json] COMMAND [ARGS]
//
// The database is a SQLite file (-db PATH, which must exist) or a
// PostgreSQL database (-dsn DSN, or the environment variable
// STATEGRAPH_POSTGRES_DSN; -schema names the schema of the tables when the
// application used postgres.WithSchema). With -json every command prints
// JSON for scripts instead of tables for people. These flags may come
// before the command or after it, among its own flags and arguments, as
// go and git take theirs: stategraph threads -db x.db works too.
//
// Commands:
//
//	threads                                           every thread: last step, status, checkpoints, namespaces, updated time
//	history THREAD [-ns NS] [-n N]                    one line per checkpoint, newest first (-n, --limit: the newest N)
//	state THREAD [CHECKPOINT] [-ns NS] [-field PATH]  values, next nodes, interrupts and task errors; -field: one value
//	diff THREAD A B [-ns NS]                          what changed from checkpoint A to B, path by path
//	mermaid THREAD [CHECKPOINT] [-ns NS]              the path the thread took, as a Mermaid flowchart
//	delete THREAD [-y]                                delete every checkpoint of the thread (asks first)
//	prune THREAD --keep N | --older-than D [--keep N] keep the newest N checkpoints of the thread, or sweep old threads (asks first)
//	verify [THREAD...]                                check every row and link of the threads (default: all)
//	replay THREAD [-graph G] [-from CHECKPOINT]       re-run a thread served with serve -record offline: the first divergence (exit 1)
//	replay -list THREAD                               the model and tool calls recorded with the thread (package replay)
//	serve [-addr HOST:PORT]                           serve the example graphs over LangGraph's Agent Server API
//	studio [-addr HOST:PORT]                          a local web page to watch, inspect, fork and resume threads
//	version                                           the module version the binary was built from
//
// studio serves LangGraph's Agent Server API at / and a page over it at
// /studio/ (package studio; docs/studio.md), on the example graphs, over
// the database given; the threads already in it are listed under the
// served graph whose fields they have.
//
// -key-file PATH (or $STATEGRAPH_KEY_FILE) reads a database that
// checkpoint/encrypt wrote: one key a line, "ID BASE64", the active key
// first.
//
// "stategraph COMMAND -h" (or --help, or "stategraph help COMMAND")
// prints a command's usage and flags on standard output and exits 0.
//
// A CHECKPOINT is a step number, a checkpoint id as history prints it,
// or a part of one that names a single checkpoint of the thread. A plain
// integer without a leading zero (-1 for the input checkpoint) is a step:
// the newest checkpoint of that step (forks and updates may have saved
// several); "diff THREAD 0 1" compares steps 0 and 1. Anything else is the
// exact id first, then, with at least 4 characters, the only id that ends
// with it, then the only id that contains it (ids are UUIDv7: a thread's
// share their first characters). A number of 4 digits or more that no
// step has is matched as a part of an id, as the digits a cut id ends
// with may be.
//
// Tables fit the terminal's width, or $COLUMNS columns when that is set
// (output to a pipe or a file is never cut, unless $COLUMNS is set): the
// widest column that may be cut (a status, a list of nodes, a diff's
// detail) loses its end to a "…" first; ids come last, keep their end
// ("…" and enough last characters to tell them apart, which still names a
// checkpoint as CHECKPOINT), and a line below the table says they were
// cut. Thread ids and times are never cut; -json never cuts anything.
//
// state -field PATH prints one value of the state: PATH is a field's
// name and then, dot by dot, the keys and array indexes into its value:
// plan.steps.0.status. A key that holds a dot, a bracket, a quote or a
// space is written as a quoted string in brackets: attrs["due.date"]; an
// index may be written [0] too. A string prints as its text, anything else
// as indented JSON; with -json, as JSON.
//
// diff compares the two checkpoints field by field. A field whose value is
// an object or an array in both is walked into: every key or element
// added, removed or changed is a row of its own, named by its path as
// state -field reads it, with the whole of its values; an array that only
// grew is "appended", followed by the elements it gained.
//
// delete asks "delete thread X (N checkpoints)? [y/N]" on the terminal and
// deletes only after y or yes; prune asks the same way before it deletes
// anything ("prune thread X to its newest N checkpoints (M of K
// deleted)?", or for --older-than the sweep it is about to make). When
// standard input is not a terminal both refuse (exit 1: nothing was done)
// unless -y (or -yes) is given, which is how a script says yes.
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
// database, a wrong DSN, an unknown thread, namespace, checkpoint or
// field, damage found by verify, a delete or prune answered no or without
// a terminal to confirm on and without -y), 2 for a usage error (an
// unknown command or flag, a missing argument, a bad --keep or -n).
//
// See docs/inspector.md for examples.
package main
