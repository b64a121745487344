package postgres

// pruneDeleteCheckpoints is the index of the statement in queries.prune
// that takes the keep count as $2.
const pruneDeleteCheckpoints = 1

// queries holds the fixed SQL of a Saver, with its table names filled in.
type queries struct {
	putFirst   string // Put when ExpectHead is ""
	putNext    string // Put when ExpectHead is set
	head       string
	putWrites  string
	fenceHeld  string // whether the lease with token $2 holds thread $1
	exists     string
	deleteAll  []string
	copyThread []string
	prune      []string
	values     string // the second statement of a page (valuesSQL)
}

func newQueries(t tables) queries {
	// putTail inserts the checkpoint and its new blobs when the CTE h
	// (the compare-and-set of the head) returned a row. One statement:
	// one round trip, one commit, and nothing stored on a mismatch.
	putTail := `,
c AS (
	INSERT INTO ` + t.checkpoints + ` (thread_id, ns, id, parent_id, created_at, versions, metadata, filter, prev, nwrites, crc)
	SELECT $1::text, $2::text, $3::text, $4::text, $5::timestamptz, $6::jsonb, $7::jsonb, $8::jsonb, $9::text, 0, $15::bigint
	WHERE EXISTS (SELECT 1 FROM h)
	RETURNING 1
),
b AS (
	INSERT INTO ` + t.blobs + ` (thread_id, ns, channel, version, data, delta, base, crc)
	SELECT $1::text, $2::text, u.channel, u.version, u.data, u.delta, u.base, u.crc
	FROM unnest($10::text[], $11::text[], $12::bytea[], $13::boolean[], $14::text[], $16::bigint[]) AS u(channel, version, data, delta, base, crc)
	WHERE EXISTS (SELECT 1 FROM h)
	ON CONFLICT DO NOTHING
)
SELECT EXISTS (SELECT 1 FROM h)`
	// fence holds the lease row of a fenced write ($17 for Put, $9 for
	// PutWrites: the lease's token, '' for an unfenced write) FOR SHARE:
	// a takeover of the lease waits for the write's commit, and one that
	// committed first changed the token, so the row is not found.
	fence := func(token string) string {
		return `f AS (
	SELECT 1 FROM ` + t.leases + ` WHERE thread_id = $1 AND token = ` + token + `::text FOR SHARE
),
`
	}
	fenced := func(token string) string { return `(` + token + `::text = '' OR EXISTS (SELECT 1 FROM f))` }
	return queries{
		// $9 is ExpectHead: recorded as prev, and for putNext the head
		// that must be current.
		putFirst: `WITH ` + fence("$17") + `h AS (
	INSERT INTO ` + t.heads + ` (thread_id, ns, head) SELECT $1::text, $2::text, $3::text WHERE $9::text = '' AND ` + fenced("$17") + `
	ON CONFLICT DO NOTHING
	RETURNING 1
)` + putTail,
		putNext: `WITH ` + fence("$17") + `h AS (
	UPDATE ` + t.heads + ` SET head = $3::text
	WHERE thread_id = $1 AND ns = $2 AND head = $9::text AND $3::text > head AND ` + fenced("$17") + `
	RETURNING 1
)` + putTail,
		fenceHeld: `SELECT EXISTS (SELECT 1 FROM ` + t.leases + ` WHERE thread_id = $1 AND token = $2)`,
		head:      `SELECT head FROM ` + t.heads + ` WHERE thread_id = $1 AND ns = $2`,
		// A non-negative index keeps the first write; a negative one
		// replaces it. A missing checkpoint fails the foreign key.
		// The checkpoint's nwrites counts the rows inserted (xmax = 0;
		// a replaced row has the updating transaction's id there).
		putWrites: `WITH ` + fence("$9") + `w AS (
	INSERT INTO ` + t.writes + ` (thread_id, ns, checkpoint_id, task_id, idx, channel, value, crc)
	SELECT $1::text, $2::text, $3::text, $4::text, u.idx, u.channel, u.value, u.crc
	FROM unnest($5::integer[], $6::text[], $7::bytea[], $8::bigint[]) AS u(idx, channel, value, crc)
	WHERE ` + fenced("$9") + `
	ON CONFLICT (thread_id, ns, checkpoint_id, task_id, idx) DO UPDATE
	SET channel = EXCLUDED.channel, value = EXCLUDED.value, crc = EXCLUDED.crc
	WHERE EXCLUDED.idx < 0
	RETURNING xmax = 0 AS inserted
)
UPDATE ` + t.checkpoints + ` SET nwrites = nwrites + (SELECT count(*) FROM w WHERE inserted)
WHERE thread_id = $1 AND ns = $2 AND id = $3 AND ` + fenced("$9") + ``,
		exists: `SELECT EXISTS (SELECT 1 FROM ` + t.checkpoints + ` WHERE thread_id = $1 AND ns = $2 AND id = $3)`,
		deleteAll: []string{
			`DELETE FROM ` + t.writes + ` WHERE thread_id = $1`,
			`DELETE FROM ` + t.checkpoints + ` WHERE thread_id = $1`,
			`DELETE FROM ` + t.blobs + ` WHERE thread_id = $1`,
			`DELETE FROM ` + t.heads + ` WHERE thread_id = $1`,
		},
		// $1 is the source thread, $2 the destination. The other rows are
		// copied by copyRows, which stores their checksums under dst.
		copyThread: []string{
			`INSERT INTO ` + t.heads + ` (thread_id, ns, head) SELECT $2::text, ns, head FROM ` + t.heads + ` WHERE thread_id = $1`,
		},
		// $1 is the thread, $2 how many checkpoints to keep per namespace.
		prune: []string{
			// Hold the heads so no Put of the thread commits meanwhile.
			`SELECT 1 FROM ` + t.heads + ` WHERE thread_id = $1 FOR UPDATE`,
			`DELETE FROM ` + t.checkpoints + ` c USING (
	SELECT ns, id, row_number() OVER (PARTITION BY ns ORDER BY id DESC) AS rn
	FROM ` + t.checkpoints + ` WHERE thread_id = $1
) r
WHERE c.thread_id = $1 AND c.ns = r.ns AND c.id = r.id AND r.rn > $2`,
			// Keep the blobs the remaining checkpoints name and the delta
			// chains behind them.
			`WITH RECURSIVE live (ns, channel, version) AS (
	SELECT c.ns, v.key COLLATE "C", v.value COLLATE "C"
	FROM ` + t.checkpoints + ` c,
	     jsonb_each_text(CASE WHEN jsonb_typeof(c.versions) = 'object' THEN c.versions ELSE '{}'::jsonb END) AS v
	WHERE c.thread_id = $1
	UNION
	SELECT b.ns, b.channel, b.base
	FROM live l JOIN ` + t.blobs + ` b
	  ON b.thread_id = $1 AND b.ns = l.ns AND b.channel = l.channel AND b.version = l.version
	WHERE b.delta AND b.base <> ''
)
DELETE FROM ` + t.blobs + ` b
WHERE b.thread_id = $1
  AND NOT EXISTS (SELECT 1 FROM live l WHERE l.ns = b.ns AND l.channel = b.channel AND l.version = b.version)`,
			// A namespace left without checkpoints has no head.
			`DELETE FROM ` + t.heads + ` h WHERE h.thread_id = $1
  AND NOT EXISTS (SELECT 1 FROM ` + t.checkpoints + ` c WHERE c.thread_id = $1 AND c.ns = h.ns)`,
		},
	}
}
