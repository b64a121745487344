package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// lockSQL writes nothing but takes SQLite's write lock: a write
// transaction that does not begin IMMEDIATE runs it first, so that its
// reads see the newest commit and no other writer can commit before it.
const lockSQL = `UPDATE schema_migrations SET version = version WHERE 0`

// The statements the hot paths use, prepared once.
const (
	sqlHead = `SELECT id FROM checkpoints WHERE thread_id = ? AND ns = ? ORDER BY id DESC LIMIT 1`

	// sqlInsertCheckpoint inserts only when the head is still the one
	// the caller expects (which it records as prev) and the new id sorts
	// after it: the compare-and-set and the insert in one statement. The
	// test makes thread_id, which is NOT NULL, NULL when it fails, and OR
	// IGNORE then skips the row: no row inserted means the caller lost
	// the race (or the id is too old); it then reads the head to say
	// which. (An INSERT ... SELECT whose WHERE reads the table copies its
	// row through a temporary table first; a VALUES row is inserted as it
	// is.) Its parameters are anonymous (the driver makes a string of the
	// name of each numbered one, at every execution), so the thread,
	// namespace, id and head come twice: see checkpointArgs. A fenced put
	// (checkpoint.WithFence) passes its lease's token, and the test also
	// needs the lease row with that token (fence.go); an unfenced one
	// passes "".
	sqlInsertCheckpoint = `INSERT OR IGNORE INTO checkpoints (thread_id, ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline)
VALUES (CASE WHEN coalesce((SELECT id FROM checkpoints WHERE thread_id = ? AND ns = ? ORDER BY id DESC LIMIT 1), '') = ? AND ? > ?
	AND (? = '' OR EXISTS (SELECT 1 FROM leases WHERE thread_id = ? AND token = ?)) THEN ? END,
	?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`

	sqlInsertBlob = `INSERT INTO blobs (thread_id, ns, channel, version, delta, base, crc, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

	// blobValuesRow is one more row of a multi-row blob insert.
	blobValuesRow = `, (?, ?, ?, ?, ?, ?, ?, ?)`

	// sqlCountWrites adds ?4 to the number of pending writes of a
	// checkpoint; no row changed means there is no such checkpoint, or
	// the writes were fenced by a lease (?5, its token; "" for none) that
	// is no longer held (fence.go): the transaction is then rolled back.
	sqlCountWrites = `UPDATE checkpoints SET nwrites = nwrites + ?4 WHERE thread_id = ?1 AND ns = ?2 AND id = ?3
	AND (?5 = '' OR EXISTS (SELECT 1 FROM leases WHERE thread_id = ?1 AND token = ?5))`

	sqlInsertWrite = `INSERT INTO writes (thread_id, ns, checkpoint_id, task_id, idx, channel, crc, value)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

	// sqlReplaceWrite replaces a stored write of a negative index.
	sqlReplaceWrite = `UPDATE writes SET channel = ?6, crc = ?7, value = ?8
WHERE thread_id = ?1 AND ns = ?2 AND checkpoint_id = ?3 AND task_id = ?4 AND idx = ?5`

	// checkpointCols are the columns of a checkpoint row as reads scan
	// them. prev, which is parent_id in a history without forks, comes
	// as NULL then, with the flag after it set (see samePrev): one string
	// fewer to read.
	checkpointCols = `id, parent_id, created_at, versions, metadata, iif(prev IS parent_id, NULL, prev), prev IS parent_id, nwrites, crc, inline`

	sqlGetLatest = `SELECT ` + checkpointCols + ` FROM checkpoints
WHERE thread_id = ? AND ns = ? ORDER BY id DESC LIMIT 1`

	sqlGetByID = `SELECT ` + checkpointCols + ` FROM checkpoints
WHERE thread_id = ? AND ns = ? AND id = ?`

	// sqlChain returns every blob that the (channel, version) pairs in ?3
	// (a JSON array of two-element arrays) name, and every blob behind a
	// delta among them, back to the newest full snapshot: one query for
	// the whole chain of every channel, however long.
	sqlChain = `WITH RECURSIVE
seed (channel, version) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?3)
),
chain (channel, version, delta, base) AS (
	SELECT b.channel, b.version, b.delta, b.base
	FROM seed s CROSS JOIN blobs b
		ON b.thread_id = ?1 AND b.ns = ?2 AND b.channel = s.channel AND b.version = s.version
	UNION
	SELECT b.channel, b.version, b.delta, b.base
	FROM chain c CROSS JOIN blobs b
		ON b.thread_id = ?1 AND b.ns = ?2 AND b.channel = c.channel AND b.version = c.base
	WHERE c.delta <> 0
)
SELECT b.channel, b.version, b.delta, b.base, b.crc, b.data
FROM chain c CROSS JOIN blobs b
	ON b.thread_id = ?1 AND b.ns = ?2 AND b.channel = c.channel AND b.version = c.version`

	writeCols = `checkpoint_id, task_id, idx, channel, crc, value`

	sqlWritesOne = `SELECT ` + writeCols + ` FROM writes
WHERE thread_id = ? AND ns = ? AND checkpoint_id = ?
ORDER BY task_id, idx`

	// sqlWritesPage takes the checkpoint ids as a JSON array in ?3.
	sqlWritesPage = `SELECT ` + writeCols + ` FROM writes
WHERE thread_id = ?1 AND ns = ?2 AND checkpoint_id IN (SELECT value FROM json_each(?3))
ORDER BY checkpoint_id, task_id, idx`
)

// maxChainOne is the LIMIT of sqlChainOne.
const maxChainOne = 4096

// sqlChainOne is sqlChain for one (channel, version), ?3 and ?4, in
// one pass: each link is looked up once, with its data, where
// sqlChain looks each up twice (its UNION, which keeps the chains of
// many seeds from being read once per seed, cannot carry the data).
// A chain that loops stops at maxChainOne rows, which rebuild then
// reports; one that long and sound is read again with sqlChain. Each
// link is one row (the key is the primary key), in chain order, so
// the rows leave out the channel (?3) and the version (?4 for the
// first, the base of the row before for the others).
var sqlChainOne = `WITH RECURSIVE
chain (delta, base, crc, data) AS (
	SELECT delta, base, crc, data FROM blobs
	WHERE thread_id = ?1 AND ns = ?2 AND version = ?4 AND channel = ?3
	UNION ALL
	SELECT b.delta, b.base, b.crc, b.data
	FROM chain c CROSS JOIN blobs b
		ON b.thread_id = ?1 AND b.ns = ?2 AND b.version = c.base AND b.channel = ?3
	WHERE c.delta <> 0
	LIMIT ` + strconv.Itoa(maxChainOne) + `
)
SELECT delta, base, crc, data FROM chain`

// checkpointArgs are the arguments of sqlInsertCheckpoint, in order;
// token is the fencing lease's token, "" for none.
func checkpointArgs(thread, ns, id, parent, created, versions, md, head, crc, inline, token any) [18]any {
	return [18]any{thread, ns, head, id, head, token, thread, token, thread, ns, id, parent, created, versions, md, head, crc, inline}
}

// stmts holds the prepared statements. Read statements are prepared on
// the read handle when the Saver opens; write statements on the write
// handle at the first write (prepareWrites).
type stmts struct {
	lock, head, insertCheckpoint, insertBlob, countWrites, insertWrite, replaceWrite *sql.Stmt
	getLatest, chainOne, inlineOf, writesOne                                         *sql.Stmt
	all                                                                              []*sql.Stmt

	// getByID, chain and writesPage are prepared when first needed
	// (lazystmt.go); lazy holds them once prepared, wanted is set when a
	// transaction had to prepare one for itself.
	getByID, chain, writesPage lazyStmt
	lazy                       []*sql.Stmt
	wanted                     atomic.Bool

	// listMu guards list, the statements of List queries by SQL text,
	// prepared on the read handle as they are first used.
	listMu sync.Mutex
	list   map[string]*sql.Stmt
	rdb    *sql.DB

	// wdb is the write handle; writesReady is set once prepareWrites has
	// prepared the write statements on it (guarded by Saver.wsem).
	wdb         *sql.DB
	writesReady bool

	// blobsN[n] inserts n blobs in one statement (2 <= n <= maxBlobRows).
	blobsN [maxBlobRows + 1]*sql.Stmt
}

// maxBlobRows is the most blobs one insert statement takes.
const maxBlobRows = 8

// insertBlobs returns the statement inserting n blobs at once (1 <= n <=
// maxBlobRows). They are all prepared by prepareWrites, before the first
// write transaction: the write handle has one connection, which a
// transaction holds while it needs them.
func (st *stmts) insertBlobs(n int) *sql.Stmt {
	if n == 1 {
		return st.insertBlob
	}
	return st.blobsN[n]
}

func blobsSQL(n int) string {
	return strings.TrimSuffix(sqlInsertBlob, " ON CONFLICT DO NOTHING") + strings.Repeat(blobValuesRow, n-1) + " ON CONFLICT DO NOTHING"
}

// maxListStmts caps the List statements kept prepared; queries beyond it
// are prepared for each page.
const maxListStmts = 64

// listStmt returns the prepared statement for a List query, or nil when
// too many are kept already.
func (st *stmts) listStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	st.listMu.Lock()
	defer st.listMu.Unlock()
	if stmt, ok := st.list[query]; ok {
		return stmt, nil
	}
	if len(st.list) >= maxListStmts {
		return nil, nil
	}
	stmt, err := st.rdb.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if st.list == nil {
		st.list = make(map[string]*sql.Stmt)
	}
	st.list[query] = stmt
	return stmt, nil
}

// prepare prepares the read statements a read of the latest state uses
// on rdb (the others when first needed: lazystmt.go), and keeps wdb for
// prepareWrites: a process that only reads (the inspector, a resume's
// first State) prepares no write statement.
func (st *stmts) prepare(ctx context.Context, rdb, wdb *sql.DB) error {
	st.rdb, st.wdb = rdb, wdb
	st.initLazy()
	return st.prepareOn(ctx, rdb, []stmtDef{
		{&st.getLatest, sqlGetLatest},
		{&st.chainOne, sqlChainOne},
		{&st.inlineOf, sqlInlineOf},
		{&st.writesOne, sqlWritesOne},
	})
}

// prepareWrites prepares the write statements on the write handle, once:
// Saver.write calls it, one writer at a time, before its transaction
// begins. After an error it prepares what is missing on the next call.
func (st *stmts) prepareWrites(ctx context.Context) error {
	if st.writesReady {
		return nil
	}
	defs := []stmtDef{
		{&st.lock, lockSQL},
		{&st.head, sqlHead},
		{&st.insertCheckpoint, sqlInsertCheckpoint},
		{&st.insertBlob, sqlInsertBlob},
		{&st.countWrites, sqlCountWrites},
		{&st.insertWrite, sqlInsertWrite},
		{&st.replaceWrite, sqlReplaceWrite},
	}
	for n := 2; n <= maxBlobRows; n++ {
		defs = append(defs, stmtDef{&st.blobsN[n], blobsSQL(n)})
	}
	if err := st.prepareOn(ctx, st.wdb, defs); err != nil {
		return err
	}
	st.writesReady = true
	return nil
}

// stmtDef is a statement to prepare: where it goes, and its SQL.
type stmtDef struct {
	dst **sql.Stmt
	sql string
}

// prepareOn prepares each statement of defs not prepared yet on db.
func (st *stmts) prepareOn(ctx context.Context, db *sql.DB, defs []stmtDef) error {
	for _, d := range defs {
		if *d.dst != nil {
			continue
		}
		stmt, err := db.PrepareContext(ctx, d.sql)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", d.sql, err)
		}
		*d.dst = stmt
		st.all = append(st.all, stmt)
	}
	return nil
}

func (st *stmts) close() error {
	var errs []error
	for _, s := range st.all {
		errs = append(errs, s.Close())
	}
	st.all = nil
	st.listMu.Lock()
	for _, s := range st.list {
		errs = append(errs, s.Close())
	}
	st.list = nil
	st.listMu.Unlock()
	errs = append(errs, st.closeLazy()...)
	return errors.Join(errs...)
}
