package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/rowsum"
)

// Every row carries the CRC-32C of its columns in its crc column (added
// by migration 2; NULL in rows written before, which read unchecked):
//
//   - checkpoints: thread_id, ns, id, parent_id, created_at (in
//     microseconds, as PostgreSQL keeps it), versions (its pairs in key
//     order), metadata (as json.Marshal writes the checkpoint.Metadata
//     decoded from it: jsonb does not keep the text it was given) and
//     prev. nwrites is not covered: it changes with every PutWrites and is
//     checked against the write rows instead. filter is derived from
//     metadata; Verify checks that it still is.
//   - blobs: thread_id, ns, channel, version, data, delta and base.
//   - writes: thread_id, ns, checkpoint_id, task_id, idx, channel, value.
//
// A checkpoint row also records prev, the head it replaced ("" for the
// first of its namespace, and for the oldest one Prune kept), so that a
// walk of the history notices a missing row; nwrites, the number of its
// pending write rows, so that a read notices a missing write; and
// stategraph_heads names the newest, so that a read from the head notices
// a missing head.

func cpChecksum(thread, ns, id, parent string, created time.Time, versions map[string]string, md []byte, prev string) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(id).String(parent).Int(created.UnixMicro())
	s.StringMap(versions).Bytes(md).String(prev)
	return int64(s.Value())
}

func blobChecksum(thread, ns, channel, version string, data []byte, delta bool, base string) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(channel).String(version).Bytes(data).Bool(delta).String(base)
	return int64(s.Value())
}

func writeChecksum(thread, ns, id, task string, idx int32, channel string, value []byte) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(id).String(task).Int(int64(idx)).String(channel).Bytes(value)
	return int64(s.Value())
}

// canonicalMetadata is the form of metadata the checksum covers: the JSON
// that json.Marshal writes for the checkpoint.Metadata decoded from md,
// the same for md and for the text jsonb gives back for it.
func canonicalMetadata(md []byte) ([]byte, error) {
	var m checkpoint.Metadata
	if err := json.Unmarshal(md, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// plainMetadata reports whether md, as json.Marshal wrote it for a
// checkpoint.Metadata (not as jsonb gives it back), is its own canonical
// form, so that Put need not decode and encode it again: it has no "extra" (whose values may
// not come back as they went, 1.0 as 1 say) and no escape (an invalid
// UTF-8 byte escaped as \ufffd comes back as the character itself). What
// is left are strings that json.Marshal writes as they are, numbers that
// are ints, and the fields in the struct's order.
func plainMetadata(md []byte) bool {
	return bytes.IndexByte(md, '\\') < 0 && !bytes.Contains(md, []byte(`"extra":`))
}

// rowInfo is what a read keeps of a checkpoint row to check it.
type rowInfo struct {
	thread, ns, id string
	parent         string
	created        time.Time
	prev           *string
	nwrites        *int32
	crc            *int64
	// own holds prev, nwrites and crc for a row decoded by hand; link
	// points the fields at it once the row's rowInfo no longer moves.
	own struct {
		set     uint8 // bits: prev, nwrites, crc not NULL
		prev    string
		nwrites int32
		crc     int64
	}
}

// The bits of rowInfo.own.set.
const (
	ownPrev uint8 = 1 << iota
	ownNwrites
	ownCRC
)

// link points prev, nwrites and crc at own, for those set.
func (r *rowInfo) link() {
	if r.own.set&ownPrev != 0 {
		r.prev = &r.own.prev
	}
	if r.own.set&ownNwrites != 0 {
		r.nwrites = &r.own.nwrites
	}
	if r.own.set&ownCRC != 0 {
		r.crc = &r.own.crc
	}
}

func (r *rowInfo) legacy() bool { return r.crc == nil && r.prev == nil && r.nwrites == nil }

func (r *rowInfo) corrupt(format string, a ...any) error {
	return corruptError(r.thread, r.ns, r.id, format, a...)
}

func corruptError(thread, ns, id, format string, a ...any) error {
	return fmt.Errorf("postgres: thread %q ns %q checkpoint %s: %s: %w", thread, ns, id, fmt.Sprintf(format, a...), checkpoint.ErrCorrupt)
}

// check checks a row decoded by hand (its columns in own) against its
// checksum, given its decoded versions and the canonical form of its
// metadata.
func (r *rowInfo) check(versions map[string]string, canon []byte) error {
	switch r.own.set {
	case 0: // written before migration 2
		return nil
	case ownPrev | ownNwrites | ownCRC:
	default:
		return r.corrupt("crc, prev and nwrites are neither all set nor all NULL")
	}
	if r.own.crc != cpChecksum(r.thread, r.ns, r.id, r.parent, r.created, versions, canon, r.own.prev) {
		return r.corrupt("the checkpoint row does not match its checksum")
	}
	return nil
}

// checkLink checks that older is the checkpoint newer replaced as the
// head, when both were read in one walk of the history with nothing left
// out between them; older nil means newer is the oldest there is.
func checkLink(newer, older *rowInfo) error {
	switch {
	case newer.legacy():
		if older != nil && !older.legacy() {
			return newer.corrupt("a checkpoint without checksums after %q, which has them", older.id)
		}
		return nil
	case older == nil:
		if *newer.prev != "" {
			return newer.corrupt("the checkpoint before it, %q, is missing", *newer.prev)
		}
	case *newer.prev == older.id:
	case *newer.prev > older.id || older.legacy():
		return newer.corrupt("the checkpoint before it, %q, is missing", *newer.prev)
	default:
		return older.corrupt("no checkpoint names it as the one before it (%q names %q)", newer.id, *newer.prev)
	}
	return nil
}

// corruptBlob names a blob that does not match its checksum.
func corruptBlob(thread, ns, channel, version string) error {
	return fmt.Errorf("postgres: thread %q ns %q blob of channel %q version %q: the blob does not match its checksum: %w",
		thread, ns, channel, version, checkpoint.ErrCorrupt)
}
