package graph

import (
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Append fields are stored as deltas: a blob holds the elements appended
// since the value before it, and the backends rebuild the value from the
// newest snapshot and the deltas after it (see checkpoint.Blob).

// When a snapshot is due. A snapshot costs the whole value's bytes once;
// what it saves is rows: a read of the newest value decodes the same
// elements either way (the snapshot and its deltas in one pass,
// state/deltajoin.go), plus one row per delta. So a snapshot is taken
// when reading the chain's rows would cost as much as decoding the whole
// value — a row costing about rowCostBytes of decoding (measured on
// SQLite: some 2 µs a row, 15–20 ns a byte) — and the chain holds at
// least minSnapshotBlobs deltas. Large deltas (chat messages of a few
// hundred bytes) then never need one: a chat thread is stored at about
// its messages' own bytes, and its latest state reads in less than twice
// the time of one blob's decode. Tiny ones (a counter's log) get one
// before their rows swamp their bytes. A step that replaced or removed
// elements (an overwrite, a rewrite by an AppendReduce reducer) always
// stores a snapshot.
const (
	minSnapshotBlobs = 64
	rowCostBytes     = 128
)

// appendTrack is what a run knows of an append field's stored value: its
// length at the last save, and the bytes and rows of its last snapshot
// and of the deltas stored since, so the next save can write a delta or a
// snapshot. A run that starts from a stored checkpoint restores all but
// segs from the value it read (the saver returns the snapshot and the
// chain of deltas after it); the merge levels of an earlier run are not
// recoverable from them (a merged delta names the version it extends,
// and the saver returns the deltas' bytes, not their versions), so
// merging starts afresh at the loaded version, above the chain read.
type appendTrack struct {
	lastLen    int   // length at the last save
	snapBytes  int   // bytes of the last snapshot
	chainBytes int   // bytes of the deltas stored since that snapshot
	oldBlobs   int   // deltas in the chain that an earlier run stored
	segs       []seg // this run's deltas since the snapshot, oldest first
}

// restoreTrack is the track of an append field read back as value v,
// whose decoded length is n.
func restoreTrack(v checkpoint.Value, n int) appendTrack {
	tr := appendTrack{lastLen: n, snapBytes: len(v.Snapshot), oldBlobs: len(v.Deltas)}
	for _, d := range v.Deltas {
		tr.chainBytes += len(d)
	}
	return tr
}

// snapshotDue reports whether the field must be stored whole rather than
// as the delta just planned (nextDelta), of added bytes: when the chain a
// read would follow, that delta included, costs more in rows than the
// value in bytes.
func (tr *appendTrack) snapshotDue(added int) bool {
	blobs := tr.oldBlobs + len(tr.segs)
	return blobs >= minSnapshotBlobs && blobs*rowCostBytes >= tr.snapBytes+tr.chainBytes+added
}

// seg is one delta blob of an append field: the elements from start on,
// extending base. Deltas are merged like the levels of an LSM tree: when
// the newest mergeFanout deltas share a level, the next delta is written
// as one blob covering all of them (from their base), a level up. Within
// a run, reading the newest value then follows O(log n) blobs, and each
// element is written O(log n) times.
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
// write overwrote it) and no snapshot is due, and otherwise as a
// snapshot. DurabilityExit always stores snapshots: the checkpoints in
// between are never stored.
func (p *persist[S]) appendBlob(i int, id string, mayDelta bool) (checkpoint.Blob, error) {
	r := p.r
	sc := r.c.schema
	tr := &p.tracks[i]
	n := sc.FieldLen(&r.st, i)
	base, hasBase := p.versions[sc.Name(i)]
	var blob checkpoint.Blob
	var err error
	if hasBase && n >= tr.lastLen && mayDelta && r.durability != DurabilityExit {
		from := 0
		blob.Base, from = tr.nextDelta(base)
		blob.Data, err = sc.EncodeTail(&r.st, i, from, r.c.ser)
		blob.Delta = true
		if err == nil && tr.snapshotDue(len(blob.Data)) {
			blob = checkpoint.Blob{} // stored whole instead, below
		} else {
			tr.chainBytes += len(blob.Data)
		}
	}
	if !blob.Delta && err == nil {
		blob.Data, err = sc.Encode(&r.st, i, r.c.ser)
		tr.snapBytes, tr.chainBytes, tr.oldBlobs, tr.segs = len(blob.Data), 0, 0, tr.segs[:0]
	}
	tr.lastLen = n
	blob.Version = appendVersion(id, n, blob.Delta)
	return blob, err
}
