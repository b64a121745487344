package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// direct runs Put on the driver connection of the write handle of a Saver
// that Open made, with its statements prepared on that connection once:
// BEGIN IMMEDIATE, the checkpoint's insert, one insert of its blobs,
// COMMIT. Through database/sql, each of them costs a transaction object
// with a goroutine watching the context, a statement wrapper, a
// conversion of every argument and, in the driver, a goroutine per
// statement watching a cancellable context; here no statement watches
// the context: BEGIN, the one that may wait (for another process's write
// lock), fails at once while the lock is taken and retryBusy waits in Go
// until the lock is free or ctx ends (busy.go); the others run to the end
// (they hold the lock and wait for nothing) and the context is checked
// again before COMMIT. A cancelled Put therefore still either stores
// nothing and returns an error wrapping ctx's, or stores its checkpoint
// and returns nil.
//
// It is guarded by the Saver's wsem, like every write.
type direct struct {
	// dc is the driver connection the statements were prepared on. The
	// write handle keeps its one connection open for its life; should
	// database/sql replace it, the statements are prepared again.
	dc                                any
	begin, commit, rollback, insertCp driver.StmtExecContext
	head, fence                       driver.StmtQueryContext
	blobs                             [maxBlobRows + 1]driver.StmtExecContext
	all                               []driver.Stmt
	// args is reused by every statement.
	args []driver.NamedValue
	// The last thread, namespace and checkpoint id put, boxed: a run puts
	// its checkpoints one after the other on one thread, each the child
	// of the one before, so these boxes serve again as its thread,
	// namespace, parent and expected head.
	thread, ns, id          string
	threadBox, nsBox, idBox any
	// tokenOf and tokenBox are the token of the last fenced put's lease,
	// and it boxed: a run's puts are all fenced by one lease.
	tokenOf  string
	tokenBox any
	// channels holds boxed channel names, which come again at every step
	// (at most maxChannelBoxes of them).
	channels map[string]any
}

// maxChannelBoxes caps direct.channels.
const maxChannelBoxes = 256

// channel returns ch boxed, from direct.channels when it is there.
func (d *direct) channel(ch string) any {
	if b, ok := d.channels[ch]; ok {
		return b
	}
	var b any = ch
	if d.channels == nil {
		d.channels = make(map[string]any)
	}
	if len(d.channels) < maxChannelBoxes {
		d.channels[ch] = b
	}
	return b
}

// box returns s as an interface value, reusing the boxes of the last Put.
func (d *direct) box(s string) any {
	switch {
	case d.idBox != nil && s == d.id:
		return d.idBox
	case d.threadBox != nil && s == d.thread:
		return d.threadBox
	case d.nsBox != nil && s == d.ns:
		return d.nsBox
	}
	return s
}

// prepare prepares the statements on dc unless they are already.
func (d *direct) prepare(ctx context.Context, dc any) error {
	if d.dc == dc {
		return nil
	}
	// Statements of another connection are dropped, not closed: that
	// connection is closed already, and closing a statement of a closed
	// connection is not safe in the driver.
	*d = direct{args: d.args[:0]}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return fmt.Errorf("driver connection %T cannot prepare statements", dc)
	}
	prep := func(query string) (driver.Stmt, error) {
		st, err := pc.PrepareContext(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", query, err)
		}
		d.all = append(d.all, st)
		return st, nil
	}
	exec := func(dst *driver.StmtExecContext, query string) error {
		st, err := prep(query)
		if err != nil {
			return err
		}
		e, ok := st.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("driver statement %T cannot execute with a context", st)
		}
		*dst = e
		return nil
	}
	err := errors.Join(exec(&d.begin, "BEGIN IMMEDIATE"), exec(&d.commit, "COMMIT"), exec(&d.rollback, "ROLLBACK"),
		exec(&d.insertCp, sqlInsertCheckpoint))
	for n := 1; n <= maxBlobRows && err == nil; n++ {
		q := sqlInsertBlob
		if n > 1 {
			q = blobsSQL(n)
		}
		err = exec(&d.blobs[n], q)
	}
	query := func(dst *driver.StmtQueryContext, query string) error {
		st, err := prep(query)
		if err != nil {
			return err
		}
		q, ok := st.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("driver statement %T cannot query with a context", st)
		}
		*dst = q
		return nil
	}
	if err == nil {
		err = errors.Join(query(&d.head, sqlHead), query(&d.fence, sqlFence))
	}
	if err == nil {
		// Waits for the write lock are retryBusy's, on every statement of
		// this connection (busy.go).
		var pragma driver.StmtExecContext
		if err = exec(&pragma, "PRAGMA busy_timeout = 0"); err == nil {
			_, err = pragma.ExecContext(ctx, nil)
		}
	}
	if err != nil {
		_ = d.close()
		return err
	}
	d.dc = dc
	return nil
}

// closeOn closes the prepared statements if they belong to the write
// connection of db, and drops them otherwise (see prepare).
func (d *direct) closeOn(db *sql.DB) error {
	if d.dc == nil {
		return nil
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		*d = direct{}
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		if dc != d.dc {
			*d = direct{}
			return nil
		}
		return d.close()
	})
}

// close closes the prepared statements.
func (d *direct) close() error {
	var errs []error
	for _, st := range d.all {
		errs = append(errs, st.Close())
	}
	*d = direct{args: d.args[:0]}
	return errors.Join(errs...)
}

// exec runs st with d.args.
func (d *direct) exec(ctx context.Context, st driver.StmtExecContext) (int64, error) {
	res, err := st.ExecContext(ctx, d.args)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// setArgs makes d.args hold vs, numbered from 1.
func (d *direct) setArgs(vs []any) {
	d.args = d.args[:0]
	for i, v := range vs {
		d.args = append(d.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
}

// putDirect is Put's transaction on the write handle's driver connection
// (see direct). It returns the error of a lost compare-and-set as
// headMismatch builds it.
func (s *Saver) putDirect(ctx context.Context, req putRow) error {
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		d := &s.direct
		if err := d.prepare(ctx, dc); err != nil {
			return err
		}
		d.args = d.args[:0]
		// BEGIN runs on a context that cannot end (the driver watches
		// none); the wait for the lock is retryBusy's, which ends with
		// ctx.
		err := retryBusy(ctx, s.busyTimeout, func() error {
			_, err := d.exec(context.Background(), d.begin)
			return err
		})
		if err != nil {
			return err
		}
		if err := s.putRows(ctx, d, req); err != nil {
			d.args = d.args[:0]
			_, _ = d.exec(context.Background(), d.rollback)
			return err
		}
		d.args = d.args[:0]
		_, err = d.exec(context.Background(), d.commit)
		if err != nil {
			_, _ = d.exec(context.Background(), d.rollback)
		}
		return err
	})
}

// putRows inserts the checkpoint and its blobs inside putDirect's
// transaction; ctx is checked before and after, not during.
func (s *Saver) putRows(ctx context.Context, d *direct, r putRow) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bg := context.Background()
	thread, ns, head := d.box(r.thread), d.box(r.ns), d.box(r.expectHead)
	id := any(r.id)
	args := checkpointArgs(thread, ns, id, d.box(r.parent), r.created, r.versions, r.md, head, r.crc, inlineArg(r.inline), d.token(r.fence))
	d.setArgs(args[:])
	n, err := d.exec(bg, d.insertCp)
	if err != nil {
		return err
	}
	d.thread, d.ns, d.id = r.thread, r.ns, r.id
	d.threadBox, d.nsBox, d.idBox = thread, ns, id
	if n == 0 && r.fence != nil {
		if err := d.checkFence(r.fence); err != nil {
			return err
		}
	}
	if n == 0 {
		d.setArgs(args[:2])
		rows, err := d.head.QueryContext(bg, d.args)
		if err != nil {
			return err
		}
		dest := []driver.Value{nil}
		var actual string
		switch err := rows.Next(dest); {
		case errors.Is(err, io.EOF):
		case err != nil:
			rows.Close()
			return err
		default:
			switch v := dest[0].(type) {
			case string:
				actual = v
			case []byte:
				actual = string(v)
			}
		}
		rows.Close()
		return r.mismatch(actual)
	}
	d.args = d.args[:0]
	rows := 0
	for ch, b := range r.blobs {
		if r.isInlined(ch) {
			continue
		}
		v := blobVersion(ch, b, r.cpVersions)
		d.args = append(d.args,
			driver.NamedValue{Ordinal: len(d.args) + 1, Value: thread},
			driver.NamedValue{Ordinal: len(d.args) + 2, Value: ns},
			driver.NamedValue{Ordinal: len(d.args) + 3, Value: d.channel(ch)},
			driver.NamedValue{Ordinal: len(d.args) + 4, Value: d.box(v)},
			driver.NamedValue{Ordinal: len(d.args) + 5, Value: b.Delta},
			driver.NamedValue{Ordinal: len(d.args) + 6, Value: b.Base},
			driver.NamedValue{Ordinal: len(d.args) + 7, Value: blobChecksum(r.thread, r.ns, ch, v, b.Delta, b.Base, b.Data)},
			driver.NamedValue{Ordinal: len(d.args) + 8, Value: b.Data},
		)
		if rows++; rows == maxBlobRows {
			if _, err := d.exec(bg, d.blobs[rows]); err != nil {
				return err
			}
			d.args, rows = d.args[:0], 0
		}
	}
	if rows > 0 {
		if _, err := d.exec(bg, d.blobs[rows]); err != nil {
			return err
		}
	}
	return ctx.Err()
}
