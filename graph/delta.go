package graph

import (
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Append fields are stored as deltas: a blob holds the elements appended
// since the value before it, and the backends rebuild the value from the
// newest snapshot and the deltas after it (see checkpoint.Blob).

// minSnapshotGap is the fewest appended elements an append field stores
// as deltas before a full snapshot; after that, a snapshot is taken when
// the deltas hold as many elements as the last snapshot, so a step costs
// O(1) amortized and a read O(length).
const minSnapshotGap = 64

// appendTrack is what a run knows of an append field's stored value: how
// long it was at the last save and at the last snapshot, and the deltas
// written since, so the next save can write a delta or a snapshot.
type appendTrack struct {
	lastLen int   // length at the last save
	snapLen int   // length at the last full snapshot
	chain   int   // elements stored as deltas since that snapshot
	segs    []seg // this run's deltas since the snapshot, oldest first
}

// seg is one delta blob of an append field: the elements from start on,
// extending base. Deltas are merged like the levels of an LSM tree: when
// the newest mergeFanout deltas share a level, the next delta is written
// as one blob covering all of them (from their base), a level up. Reading
// the newest value then follows O(log n) blobs, and each element is
// written O(log n) times.
type seg struct {
	base  string
	start int
	level int
}

// mergeFanout is how many deltas of one level are merged into one.
const mergeFanout = 8

// nextDelta returns the base and start of the delta to write for an
// append field that grew from lastLen, merging levels when due.
func (tr *appendTrack) nextDelta(prevVersion string) (base string, start int) {
	s := seg{base: prevVersion, start: tr.lastLen}
	for {
		k := len(tr.segs)
		if k < mergeFanout-1 {
			break
		}
		lvl := tr.segs[k-1].level
		same := true
		for _, x := range tr.segs[k-(mergeFanout-1):] {
			same = same && x.level == lvl
		}
		if !same || s.level != lvl {
			break
		}
		first := tr.segs[k-(mergeFanout-1)]
		s = seg{base: first.base, start: first.start, level: lvl + 1}
		tr.segs = tr.segs[:k-(mergeFanout-1)]
	}
	tr.segs = append(tr.segs, s)
	return s.base, s.start
}

// appendVersion names the version of an append field: the checkpoint id,
// then the field's length, then 'd' when the value was stored as a delta
// (it extends the value before it) or 's' for a snapshot. History uses
// them to slice an older value out of a newer one instead of decoding it.
func appendVersion(id string, n int, delta bool) string {
	kind := "s"
	if delta {
		kind = "d"
	}
	return id + "." + strconv.Itoa(n) + kind
}

// parseAppendVersion returns the length and delta flag of an append
// field's version, and false for a version not made by appendVersion.
func parseAppendVersion(v string) (n int, delta, ok bool) {
	dot := strings.LastIndexByte(v, '.')
	if dot < 0 || len(v) < dot+3 {
		return 0, false, false
	}
	kind := v[len(v)-1]
	if kind != 'd' && kind != 's' {
		return 0, false, false
	}
	n, err := strconv.Atoi(v[dot+1 : len(v)-1])
	if err != nil || n < 0 {
		return 0, false, false
	}
	return n, kind == 'd', true
}

// appendBlob encodes append field i of the run's state for checkpoint id:
// as a delta over the value stored before when it only grew (mayDelta: no
// write overwrote it) and the deltas since the last snapshot are still
// short, and otherwise as a snapshot. DurabilityExit always stores
// snapshots: the checkpoints in between are never stored.
func (p *persist[S]) appendBlob(i int, id string, mayDelta bool) (checkpoint.Blob, error) {
	r := p.r
	sc := r.c.schema
	tr := &p.tracks[i]
	n := sc.FieldLen(&r.st, i)
	added := n - tr.lastLen
	base, hasBase := p.versions[sc.Name(i)]
	var blob checkpoint.Blob
	var err error
	if hasBase && added >= 0 && mayDelta && tr.chain+added < max(minSnapshotGap, tr.snapLen) && r.durability != DurabilityExit {
		from := 0
		blob.Base, from = tr.nextDelta(base)
		blob.Data, err = sc.EncodeTail(&r.st, i, from, r.c.ser)
		blob.Delta = true
		tr.chain += added
	} else {
		blob.Data, err = sc.Encode(&r.st, i, r.c.ser)
		tr.snapLen, tr.chain, tr.segs = n, 0, tr.segs[:0]
	}
	tr.lastLen = n
	blob.Version = appendVersion(id, n, blob.Delta)
	return blob, err
}
