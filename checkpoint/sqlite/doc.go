// Package sqlite is the embedded, default checkpoint.Saver: every thread's
// checkpoints, channel values and pending writes in one SQLite file,
// through modernc.org/sqlite (pure Go, no cgo).
//
//	saver, err := sqlite.Open("checkpoints.db")
//	if err != nil { … }
//	defer saver.Close()
//
// # What it stores
//
// A checkpoint row holds its thread, namespace, id, parent id, creation
// time, metadata (JSON) and channel versions (a JSON object from channel
// to version). Channel values live apart, one row per (thread, namespace,
// channel, version), so a channel that did not change in a step is not
// written again: the checkpoint only names the version it already has.
// An append-only channel is stored as deltas: a row whose delta flag is
// set holds only the elements appended since its base version, so a step
// costs one small row however long the history. Get and List rebuild a
// value by walking the chain back to the newest full snapshot in one
// recursive query, and return it as checkpoint.Value{Snapshot, Deltas}.
// Pending writes are rows per (thread, namespace, checkpoint, task,
// index).
//
// # Integrity
//
// Every row carries a CRC-32C of all its columns (integrity.go lists
// them), computed once as it is written and checked as it is read, so a
// changed value anywhere is checkpoint.ErrCorrupt naming the thread and
// checkpoint rather than data handed to the deserializer. A checkpoint
// also records prev, the head it replaced, and nwrites, the number of its
// pending writes: Get checks a checkpoint's writes against the count,
// and List, walking a whole history, checks that each checkpoint names
// the next older one, so a deleted checkpoint or write is ErrCorrupt too.
// A value a read finds missing because the row that holds it (inline.go)
// is damaged or deleted is reported as that row's damage, as a walk of
// the history would report it, not as the value missing.
// Verify (checkpoint.Verifier) checks every row of a thread, in every
// namespace, and every link. Rows written before schema version 2 (no
// checkpoint checksum; blob and write checksums over fewer columns) still
// read, checked as far as their checksum goes. A deleted head cannot be
// told from a history that never had it: no row outside the checkpoints
// names the head. A file SQLite reports as damaged (SQLITE_CORRUPT,
// SQLITE_NOTADB) is checkpoint.ErrCorrupt too.
//
// created_at holds Unix nanoseconds (0 for the zero time) for the
// instants that round-trip so, and RFC 3339 text with nanoseconds for the
// others (the Unix epoch itself, and years before 1678 or after 2262):
// every time.Time reads back equal, without a schema change.
//
// # Schema
//
// Open applies the migrations that the table schema_migrations(version,
// applied_at) does not list yet, each in its own transaction, so opening
// a file twice, or from two processes at once, is safe. Version 1 makes:
//
//	checkpoints (thread_id, ns, id, parent_id, created_at, versions, metadata)
//	    PRIMARY KEY (thread_id, ns, id)
//	blobs (thread_id, ns, channel, version, delta, base, crc, data)
//	    PRIMARY KEY (thread_id, ns, channel, version)
//	writes (thread_id, ns, checkpoint_id, task_id, idx, channel, crc, value)
//	    PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
//
// version 2 adds prev, nwrites and crc to checkpoints, version 3 the
// leases table (thread_id, token, holder, since, expires) of
// checkpoint.Leaser, and version 4 keys blobs by
// (thread_id, ns, version, channel): the runtime names a version after the
// checkpoint that made it, so a step's new blobs are neighbours and a
// commit writes one page of blobs, not one per changed channel. Version
// 5 adds inline to checkpoints: a small value whose version belongs to
// the checkpoint (its id, or its id, "." and a suffix, as the runtime
// names them) is stored in the checkpoint's row, covered by its checksum,
// so a step of small values writes one row of one B-tree; larger values,
// values named otherwise and those of rows written before stay in blobs.
// A read looks for a value in the row its version belongs to, then in
// blobs. Version 6 changes no table: a row written since stores its
// versions relative to its id (a version that belongs to the checkpoint
// as "=" and its suffix), which its checksum's kind says, so a step's row
// is some 70 bytes shorter and the checkpoints B-tree splits less often;
// rows written before read as they are. A database of an older version
// is migrated when Open (or New) opens it for writing, and reads as
// before;
//
// all WITHOUT ROWID, so a thread's rows sit together in key order and the
// head of a thread is the last key of its range.
//
// # WAL and durability
//
// The file is in WAL mode: readers never block the writer nor each other.
// WithSynchronous chooses what a commit survives. SyncNormal (the
// default) survives a crash of the process, since a commit is in the OS
// once Put returns; a power loss may lose the last commits but never
// corrupts the file. SyncFull also survives a power loss: every commit
// waits for an fsync of the log.
//
// # Concurrency
//
// A Saver is safe for concurrent use. Writes go through one connection,
// one at a time, each in a BEGIN IMMEDIATE transaction; reads use a pool
// of connections (WithMaxReaders), each call in one read transaction, so
// it sees one snapshot. Put reads the head of (thread, namespace) and
// inserts the checkpoint in the same write transaction, holding SQLite's
// write lock, so of two writers with the same ExpectHead — in one process,
// or in two processes or handles on one file — one wins and the other
// gets checkpoint.ErrConflict. A writer from another handle that holds
// the lock longer than WithBusyTimeout makes Put fail with SQLite's busy
// error, never with a silent fork. A Saver that Open made waits for the
// lock in Go, so a wait also ends with the caller's context.
//
// List reads a page of checkpoints at a time (the newest alone, then
// growing to 512 rows), then the values and pending writes of the whole
// page: the values inline in the rows their versions belong to, then, a
// query a round, the blobs that the delta chains behind them need; only
// the rows that count pending writes are looked up for them. A value that
// ListOptions.SkipValue skips is not read at all. Filters on "source", "step", "run_id" and string values of
// Metadata.Extra run in SQL (json_extract); others are matched in Go with
// checkpoint.Metadata.Matches.
//
// The Saver implements checkpoint.Copier, checkpoint.Pruner,
// checkpoint.Verifier and checkpoint.HeadGetter (GetHead: a checkpoint
// without its fields' values, one statement when its row holds the
// rest). Prune keeps every blob that a kept checkpoint
// names and the whole delta chain behind it (values inline in a row it
// deletes move to blobs), and makes the oldest kept checkpoint name none
// before it. CopyThread checks each row and stores
// it with its checksum under the new thread.
package sqlite
