package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// Put stores a checkpoint and its new blobs in one transaction, as a
// compare-and-set on the head (the greatest id) of its thread and
// namespace: if the head is not req.ExpectHead, it stores nothing and
// returns an error wrapping checkpoint.ErrConflict. The checkpoint's id
// must be greater than the head's, as checkpoint.NewID makes it. A new
// blob without a Version is stored under the checkpoint's version of its
// channel; one with neither is refused. An error that ctx's cancellation
// caused wraps ctx's error; the checkpoint is then not stored.
func (s *Saver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	cfg, cp := req.Config, req.Checkpoint
	thread, ns := cfg.ThreadID, cfg.Namespace
	if thread == "" {
		return checkpoint.Config{}, errors.New("sqlite: put: empty thread id")
	}
	if cp.ID == "" {
		return checkpoint.Config{}, fmt.Errorf("sqlite: put on thread %q namespace %q: empty checkpoint id", thread, ns)
	}
	versions, md, err := encodeColumns(cp.Versions, &cp.ID, req.Metadata, true)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("sqlite: put %q on thread %q: versions or metadata: %w", cp.ID, thread, err)
	}
	for ch, b := range cp.New {
		if blobVersion(ch, b, cp.Versions) == "" {
			return checkpoint.Config{}, fmt.Errorf("sqlite: put %q on thread %q: blob of channel %q has no version", cp.ID, thread, ch)
		}
	}

	created := encodeTime(cp.CreatedAt)
	// The rest of the row: its text columns and about 30 bytes of
	// integers and record header.
	rowSize := len(thread) + len(ns) + len(cp.ID) + len(cfg.CheckpointID) + len(req.ExpectHead) + len(versions) + len(md) + 30
	inline, all, some := chooseInline(cp.ID, rowSize, cp.New, cp.Versions)
	row := putRow{
		thread: thread, ns: ns, id: cp.ID, parent: cfg.CheckpointID, expectHead: req.ExpectHead,
		created: created, versions: versions, md: md, inline: inline, inlineAll: all, inlined: some,
		crc:   cpChecksum(thread, ns, cp.ID, cfg.CheckpointID, created, versions, md, req.ExpectHead, inline, true),
		blobs: cp.New, cpVersions: cp.Versions, fence: s.fenceOf(ctx, thread),
	}
	if s.own {
		err = s.putDirect(ctx, row)
	} else {
		err = s.write(ctx, func(tx *sql.Tx) error { return s.putTx(ctx, tx, row) })
	}
	if err != nil {
		if isOurs(err) {
			return checkpoint.Config{}, err
		}
		return checkpoint.Config{}, withCtx(ctx, fmt.Errorf("sqlite: put %q on thread %q namespace %q: %w", cp.ID, thread, ns, err))
	}
	return checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: cp.ID}, nil
}

// putRow is what Put stores, encoded.
type putRow struct {
	thread, ns, id, parent, expectHead string
	created                            any
	versions, md                       []byte
	crc                                int64
	// inline is the inline column (nil: none), which holds every
	// candidate (inlineAll) or the blobs in inlined (see chooseInline):
	// those of blobs that are not stored as rows.
	inline     []byte
	inlineAll  bool
	inlined    []inlineBlob
	blobs      map[string]checkpoint.Blob
	cpVersions map[string]string
	// fence is the lease the put is fenced by (checkpoint.WithFence), or
	// nil.
	fence *sqlLease
}

// isInlined reports whether the new blob of channel ch is in the row's
// inline column.
func (r *putRow) isInlined(ch string) bool {
	if r.inline == nil {
		return false
	}
	if r.inlineAll {
		return inlineCandidate(r.id, ch, r.blobs[ch], r.cpVersions)
	}
	for i := range r.inlined {
		if r.inlined[i].channel == ch {
			return true
		}
	}
	return false
}

// rowBlobs is the number of new blobs stored as rows.
func (r *putRow) rowBlobs() int {
	n := 0
	for ch := range r.blobs {
		if !r.isInlined(ch) {
			n++
		}
	}
	return n
}

// mismatch is the error of a Put whose insert stored nothing, given the
// head the thread has: another head than expected, or an id that does not
// sort after it.
func (r putRow) mismatch(head string) error {
	if head != r.expectHead {
		return conflictError(r.thread, r.ns, r.expectHead, head)
	}
	return fmt.Errorf("sqlite: thread %q namespace %q: checkpoint id %q is not greater than the head %q: %w",
		r.thread, r.ns, r.id, head, checkpoint.ErrConflict)
}

// putTx inserts the checkpoint and its blobs in tx, through database/sql:
// Put's way on a handle the caller opened (New).
func (s *Saver) putTx(ctx context.Context, tx *sql.Tx, r putRow) error {
	args := checkpointArgs(r.thread, r.ns, r.id, r.parent, r.created, r.versions, r.md, r.expectHead, r.crc, inlineArg(r.inline), r.fence.fenceToken())
	res, err := tx.StmtContext(ctx, s.st.insertCheckpoint).ExecContext(ctx, args[:]...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		if err := checkFenceTx(ctx, tx, r.fence); err != nil {
			return err
		}
		var head string
		err := tx.StmtContext(ctx, s.st.head).QueryRowContext(ctx, r.thread, r.ns).Scan(&head)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return r.mismatch(head)
	}
	rows := r.rowBlobs()
	if rows == 0 {
		return nil
	}
	blobArgs := make([]any, 0, 8*min(rows, maxBlobRows))
	flush := func() error {
		if len(blobArgs) == 0 {
			return nil
		}
		_, err := tx.StmtContext(ctx, s.st.insertBlobs(len(blobArgs)/8)).ExecContext(ctx, blobArgs...)
		blobArgs = blobArgs[:0]
		return err
	}
	for ch, b := range r.blobs {
		if r.isInlined(ch) {
			continue
		}
		v := blobVersion(ch, b, r.cpVersions)
		blobArgs = append(blobArgs, r.thread, r.ns, ch, v, b.Delta, b.Base, blobChecksum(r.thread, r.ns, ch, v, b.Delta, b.Base, b.Data), b.Data)
		if len(blobArgs) == 8*maxBlobRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// blobVersion is the version a new blob is stored under: its own, or else
// the checkpoint's version of its channel.
func blobVersion(ch string, b checkpoint.Blob, versions map[string]string) string {
	if b.Version != "" {
		return b.Version
	}
	return versions[ch]
}

// PutWrites stores a task's writes against the checkpoint cfg names,
// stamped with taskID. A write with a non-negative index is stored once
// (a second one with the same task and index is ignored); one with a
// negative index replaces the earlier one. A checkpoint that does not
// exist, or an empty cfg.CheckpointID, is checkpoint.ErrNotFound. An error
// that ctx's cancellation caused wraps ctx's error; the writes are then
// not stored (the transaction did not commit).
func (s *Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) error {
	if cfg.CheckpointID == "" {
		return notFoundError(cfg)
	}
	thread, ns, id := cfg.ThreadID, cfg.Namespace, cfg.CheckpointID
	fence := s.fenceOf(ctx, thread)
	err := s.write(ctx, func(tx *sql.Tx) error {
		return s.putWritesTx(ctx, tx, cfg, taskID, writes, fence)
	})
	if err != nil && !isOurs(err) {
		return withCtx(ctx, fmt.Errorf("sqlite: put writes of task %q on thread %q namespace %q checkpoint %q: %w", taskID, thread, ns, id, err))
	}
	return err
}

// putWritesTx stores a task's writes in tx, as PutWrites does.
func (s *Saver) putWritesTx(ctx context.Context, tx *sql.Tx, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite, fence *sqlLease) error {
	thread, ns, id := cfg.ThreadID, cfg.Namespace, cfg.CheckpointID
	// added counts the rows this call inserts, for the checkpoint's
	// nwrites; a write that replaces one adds none.
	var ins, rep *sql.Stmt
	added := 0
	for _, w := range writes {
		if ins == nil {
			ins = tx.StmtContext(ctx, s.st.insertWrite)
		}
		crc := writeChecksum(thread, ns, id, taskID, int64(w.Index), w.Channel, w.Value)
		res, err := ins.ExecContext(ctx, thread, ns, id, taskID, w.Index, w.Channel, crc, w.Value)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n > 0 {
			added++
			continue
		}
		if w.Index >= 0 {
			continue // the first write of a non-negative index stays
		}
		if rep == nil {
			rep = tx.StmtContext(ctx, s.st.replaceWrite)
		}
		if _, err := rep.ExecContext(ctx, thread, ns, id, taskID, w.Index, w.Channel, crc, w.Value); err != nil {
			return err
		}
	}
	res, err := tx.StmtContext(ctx, s.st.countWrites).ExecContext(ctx, thread, ns, id, added, fence.fenceToken())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		if err := checkFenceTx(ctx, tx, fence); err != nil {
			return err // rolled back: the writes inserted above go
		}
		return notFoundError(cfg)
	}
	return nil
}

// isOurs reports whether err already carries this package's context.
func isOurs(err error) bool {
	return errors.Is(err, checkpoint.ErrNotFound) || errors.Is(err, checkpoint.ErrConflict) ||
		errors.Is(err, checkpoint.ErrCorrupt)
}
