package postgres

import "strconv"

// chainWindow is how many blobs of a channel a page of one checkpoint
// reads in one index range scan, newest first, to find the delta chain
// behind the checkpoint's value (windowSQL). A chat stored as deltas
// (one blob a message, no snapshot while its messages are larger than a
// row's cost) has a chain as long as its history: following it one
// primary-key probe at a time, as a recursive query does, costs
// PostgreSQL an iteration of the recursion a blob (some 4–7 µs each, 1.3
// ms of server time for a 50-turn chat's 200 blobs), where one range
// scan costs it well under a microsecond a blob. The window is bounded so
// that a sparse chain (the merged deltas of one long run, a few blobs
// spread over thousands) costs a bounded scan; what a chain needs beyond
// the window the page's second statement follows (chainGap).
const chainWindow = 256

// windowSQL returns the CTE top and the blob rows (kind 2) of a page of one checkpoint
// that reads the blobs of every channel: the blob each channel's version
// names, and for a delta the newest chainWindow blobs of its channel up
// to it, in one range scan over the primary key (thread, ns, version,
// channel) that skips the other channels' entries in the index. Of
// those it returns the rows a chain can pass through: a blob is dropped
// when a newer blob of the window extends a version older than it (a
// merged delta that covers it, or a snapshot or a delta of the empty
// value that ends the chain above it), so a snapshot's older history and
// the deltas merged into another are read, not sent. It expects the CTE
// want (channel, version) of the page's values.
//
// The window assumes nothing of the history's shape: a chain that leaves
// it (longer than the window, or a fork whose blobs interleave with
// another branch's) is left with a gap, which the page's second
// statement reads by following the chain from it (chainGap).
func (s *Saver) windowSQL() (cte, rows string) {
	window := strconv.Itoa(chainWindow)
	return `,
top AS (
	SELECT b.channel, b.version, b.delta, b.base, b.crc, b.data
	FROM want w CROSS JOIN LATERAL (
		SELECT b.channel, b.version, b.delta, b.base, b.crc, b.data FROM ` + s.t.blobs + ` b
		WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = w.channel AND b.version = w.version
		LIMIT 1
	) b
)`, `SELECT 2::int2, t.channel, t.version, t.base, NULL::timestamptz, NULL::text, NULL::text, NULL::integer, t.crc, t.data, t.delta
FROM top t WHERE NOT t.delta
UNION ALL
SELECT 2, t.channel, y.version, y.base, NULL, NULL, NULL, NULL, y.crc, y.data, y.delta
FROM top t CROSS JOIN LATERAL (
	SELECT y.version, y.delta, y.base, y.crc, y.data FROM (
		SELECT b.version, b.delta, b.base, b.crc, b.data,
			min(b.base) OVER (ORDER BY b.version DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
		FROM (
			SELECT b.version, b.delta, b.base, b.crc, b.data FROM ` + s.t.blobs + ` b
			WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = t.channel AND b.version <= t.version
			ORDER BY b.version DESC LIMIT ` + window + `
		) b
	) y WHERE y.covered IS NULL OR y.covered >= y.version
) y
WHERE t.delta`
}

// chainGap returns the first blob the chain of channel ch at version
// needs that blobs lacks, and false when the chain is complete or ends
// at a row that rebuild reports (a row that fails its checksum, a
// cycle): the blob a page's second statement reads the chain from.
func chainGap(blobs map[blobKey]blobRow, ch, version string) (blobKey, bool) {
	v := version
	for range len(blobs) + 1 {
		b, ok := blobs[blobKey{ch, v}]
		switch {
		case !ok:
			return blobKey{ch, v}, true
		case b.bad || !b.delta || b.base == "":
			return blobKey{}, false
		}
		v = b.base
	}
	return blobKey{}, false
}
