// Package postgres is a checkpoint.Saver on PostgreSQL (pgx/v5), for graphs
// run by many processes on many machines against one database.
//
// # What it stores
//
// Five tables, all named stategraph_* (in the schema WithSchema names, or
// wherever the search_path puts them):
//
//   - stategraph_checkpoints: one row per checkpoint, keyed by (thread_id,
//     ns, id), with its parent id, creation time, channel versions, the
//     metadata as JSONB, and the flattened metadata (checkpoint.Metadata's
//     Flatten) in a JSONB column "filter" with a GIN (jsonb_path_ops)
//     index. List filters run in the database as containment on it.
//   - stategraph_blobs: one row per (thread_id, ns, channel, version) with
//     the serialized value, or with delta set the elements appended since
//     base. Put writes only the blobs of its checkpoint's new versions, so
//     a channel that did not change is never written again, and an
//     append-only channel costs one small delta per step. Since schema
//     version 4 its key is (thread_id, ns, version, channel): the runtime
//     names a version after the checkpoint that made it, so a step's new
//     blobs are neighbours in the index.
//   - stategraph_writes: the pending writes of tasks, keyed by (thread_id,
//     ns, checkpoint_id, task_id, idx); they go with their checkpoint.
//   - stategraph_heads: the newest checkpoint id of each (thread_id, ns).
//   - stategraph_leases: the lease of each running thread
//     (checkpoint.Leaser): holder, since and expires, timed by the
//     server's clock, so machines whose clocks differ agree on expiry.
//
// Get rebuilds every channel's value from the blobs one statement reads:
// for a delta, one index range scan over the newest 256 blobs of its
// channel, which holds the chain back to its newest full snapshot unless
// the chain is longer (a page of many checkpoints walks the chains
// instead, reading each shared blob once). A chain longer than that is
// followed from where the scan ended in a second round trip. Otherwise
// Get, GetHead and each page of List are one round trip: the checkpoints, their
// blobs and their writes are read by one statement, so from one snapshot,
// never one query per checkpoint. List's first page is one checkpoint and
// each page after it sixteen times larger, up to 1,024. A List with
// ListOptions.SkipValue reads each page's checkpoints, writes and
// schedules first, asks SkipValue, and reads the blobs of the values it
// did not skip in a second round trip (none when it skipped them all);
// blobs never change once stored, and a checkpoint deleted between the
// two (by Prune or DeleteThread) ends the listing before it. A blob that
// is missing, a broken delta chain or undecodable data is an error
// wrapping checkpoint.ErrCorrupt that names the thread and checkpoint.
//
// # Integrity
//
// Every row carries a CRC-32C of all its columns in a crc column
// (integrity.go lists them; versions and metadata are summed as decoded,
// since jsonb does not keep the text it was given), computed once in Go
// as it is written and checked as it is read. A checkpoint also records
// prev, the head it replaced, and nwrites, the number of its pending
// writes. So, with no extra round trip: Get and List check every row
// they return and each checkpoint's writes against its count; a read
// from the head checks that stategraph_heads names the newest checkpoint;
// and List, walking a whole history, checks that each checkpoint names
// the next older one. Any of these failing is checkpoint.ErrCorrupt
// naming the thread, namespace and checkpoint. Verify
// (checkpoint.Verifier) checks every row of a thread in every namespace,
// every link, and that each filter column is still its metadata's. Rows
// written before schema version 2 have NULL there and read unchecked.
//
// # One writer per thread, across processes
//
// Put is a compare-and-set on the thread's head, enforced by PostgreSQL in
// the same statement that stores the checkpoint: the head row is updated
// only where it still equals PutRequest.ExpectHead (or inserted, for the
// first checkpoint of a namespace), and the checkpoint and its blobs are
// inserted only if that happened. Row locks serialize concurrent puts on
// one thread, whichever process or machine they come from; the loser gets
// an error wrapping checkpoint.ErrConflict that names the thread, the
// namespace, the head it expected and the head the thread has, and stores
// nothing. The statement is one round trip and one commit: with
// synchronous_commit on (the default), a durable step costs one WAL flush.
//
// # Migrations
//
// Call Migrate before first use, from every process if you like: it runs in
// one transaction under a transaction-scoped advisory lock whose key is
// fixed for the schema, records what it applied in stategraph_migrations
// (version, applied_at), and does nothing when the schema is up to date.
//
// # Retention
//
// Checkpoints are kept until deleted. DeleteThread removes a thread in one
// transaction. Saver implements checkpoint.HeadGetter (GetHead reads
// the checkpoint in one round trip, with only the reserved channels'
// blobs). Saver also implements checkpoint.Pruner: Prune keeps the
// newest checkpoints of each namespace and deletes the rest, with their
// pending writes and every blob no kept checkpoint needs (blobs behind a
// kept delta chain are kept). Prune holds the thread's heads while it
// runs; do not prune checkpoints a run may still fork from. And
// checkpoint.Copier: CopyThread copies a thread from one consistent
// snapshot, checking each row and storing it with its checksum under the
// new thread. Prune makes the oldest checkpoint it keeps name none before
// it.
//
// # Cancellation
//
// Put and PutWrites settle before they return. pgx answers a cancelled
// context by dropping the connection while its cancel request is on its
// way, and the server may still commit the statement; a caller that
// retried would then meet its own checkpoint as ErrConflict. So these two
// run their statement detached from the context's cancellation: when the
// context is cancelled (or WithWriteTimeout passes), the Saver sends the
// cancel request itself and waits for the server's answer. An error means
// nothing was stored (and wraps context.Canceled when the cancellation
// caused it); nil means the write is stored. Only a server that does not
// answer at all leaves the outcome unknown. Reads, DeleteThread,
// CopyThread and Prune stop as soon as the context is done; those that
// write run in a transaction that is rolled back.
//
// # Limits
//
// jsonb cannot hold U+0000, and a btree index entry holds about 2.7 kB
// after compression. Put refuses metadata, channel names and versions
// that contain U+0000, and Put and PutWrites refuse keys too long for an
// index entry (thread id and namespace, with the checkpoint id, a channel
// name and version, or a task id), with an error wrapping ErrLimit that
// names the field; nothing is stored. Thread ids and namespaces may not
// contain U+0000 either (PostgreSQL text cannot).
//
// Errors from the database, including a connection killed mid-call, are
// returned wrapped (errors.As finds the *pgconn.PgError) with the thread
// they concern; a cancelled context gives an error wrapping
// context.Canceled. The pool replaces dead connections, so the next call
// works once the database is reachable.
package postgres
