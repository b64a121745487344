// Package memory is an in-memory checkpoint.Saver.
//
// It keeps nothing after the process exits: use it for tests, examples and
// short-lived programs, and checkpoint/sqlite or checkpoint/postgres for
// anything that must survive a restart.
//
// A Saver is safe for concurrent use. It shares byte slices with its
// callers instead of copying them, as checkpoint.Saver allows: a caller
// must not modify a slice after handing it to Put or PutWrites, nor one
// that Get or List returned. Maps and slices of the tuples it returns are
// the caller's own, at every depth: Put stores Metadata.Extra as a JSON
// round trip leaves it (as the other savers do), and Get and List return
// deep copies of it.
//
// Costs: Put is O(new blobs + channels), Get of the latest checkpoint is
// O(channels + delta chain length + pending writes), Get by id adds a
// binary search, and List yields lazily in id order without sorting. It
// implements checkpoint.Copier, checkpoint.Pruner and
// checkpoint.HeadGetter, and passes
// checkpoint/checkpointtest.
package memory
