package sqlite

import (
	"database/sql"
	"hash/crc32"

	"github.com/stategraph/stategraph/internal/rowsum"
)

// Every row carries a checksum in its crc column, of one of several
// kinds; the kind is in the bits above the low 32, so that rows written
// by an older version still read, checked as far as their kind allows.
//
//   - checkpoints (crc added by migration 2): cpSumKind over thread_id,
//     ns, id, parent_id, created_at (with its SQLite type), versions,
//     metadata and prev. NULL in rows written before migration 2, which
//     are read unchecked. A row with values inline (migration 5) has
//     cpInlineKind, over the same columns and the inline column. A row
//     whose versions column is relative to its id (migration 6, see
//     relVersion) has cpRelKind or cpRelInlineKind, over the same columns
//     as the kind before. nwrites is not covered: it changes with every
//     PutWrites, and is checked against the write rows instead.
//   - blobs: the CRC-32C of data alone (below 2^32, the first version),
//     blobSumKind over delta, base and data, or blobRowKind over every
//     column: thread_id, ns, channel, version, delta, base and data.
//   - writes: the CRC-32C of value alone (below 2^32, before this
//     version), or writeRowKind over every column: thread_id, ns,
//     checkpoint_id, task_id, idx, channel and value.
//
// Besides the row checksums, a checkpoint row records prev, the head it
// replaced ("" for the first of its namespace, and for the oldest one
// Prune kept), so that a walk of the history notices a missing row, and
// nwrites, the number of pending write rows stored against it, so that a
// read notices a missing write.
const (
	blobSumKind  = int64(1) << 32
	blobRowKind  = int64(2) << 32
	cpSumKind    = int64(1) << 32
	cpInlineKind = int64(2) << 32
	// cpRelKind and cpRelInlineKind are cpSumKind and cpInlineKind of a
	// row whose versions are relative to its id.
	cpRelKind       = int64(3) << 32
	cpRelInlineKind = int64(4) << 32
	writeRowKind    = int64(1) << 32
)

// castagnoli is the CRC-32C table of the checksums of the first version.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of b: the crc of a blob or write of the first
// version.
func checksum(b []byte) int64 { return int64(crc32.Checksum(b, castagnoli)) }

// blobChecksum is the crc column of a blob this version writes.
func blobChecksum(thread, ns, channel, version string, delta bool, base string, data []byte) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(channel).String(version).Bool(delta).String(base).Bytes(data)
	return blobRowKind | int64(s.Value())
}

// blobChecksumOK reports whether a blob row matches its crc column, of
// any kind.
func blobChecksumOK(crc int64, thread, ns, channel, version string, delta bool, base string, data []byte) bool {
	switch {
	case crc < blobSumKind:
		return crc == checksum(data)
	case crc < blobRowKind:
		head := make([]byte, 0, 2+len(base))
		if delta {
			head = append(head, 1)
		} else {
			head = append(head, 0)
		}
		head = append(head, base...)
		head = append(head, 0)
		sum := crc32.Update(0, castagnoli, head)
		return crc == blobSumKind|int64(crc32.Update(sum, castagnoli, data))
	}
	return crc == blobChecksum(thread, ns, channel, version, delta, base, data)
}

// writeChecksum is the crc column of a write this version writes.
func writeChecksum(thread, ns, id, task string, idx int64, channel string, value []byte) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(id).String(task).Int(idx).String(channel).Bytes(value)
	return writeRowKind | int64(s.Value())
}

// writeChecksumOK reports whether a write row matches its crc column, of
// either kind.
func writeChecksumOK(crc int64, thread, ns, id, task string, idx int64, channel string, value []byte) bool {
	if crc < writeRowKind {
		return crc == checksum(value)
	}
	return crc == writeChecksum(thread, ns, id, task, idx, channel, value)
}

// cpChecksum is the crc column of a checkpoint row. created is the
// created_at column as encodeTime returns it or as it is read back;
// versions is the column as stored, relative to id when rel is set;
// inline is the inline column (empty: none).
func cpChecksum(thread, ns, id, parent string, created any, versions, md []byte, prev string, inline []byte, rel bool) int64 {
	var s rowsum.Sum
	s.String(thread).String(ns).String(id).String(parent)
	switch c := created.(type) {
	case int64:
		s.Int(c)
	case string:
		s.String(c)
	case []byte:
		s.String(string(c))
	default:
		s.Bytes(nil)
	}
	s.Bytes(versions).Bytes(md).String(prev)
	kind := cpSumKind
	if len(inline) > 0 {
		s.Bytes(inline)
		kind = cpInlineKind
	}
	if rel {
		kind += cpRelKind - cpSumKind
	}
	return kind | int64(s.Value())
}

// relCRC reports whether a checkpoint row's crc column is of a kind whose
// versions are relative to the row's id.
func relCRC(crc sql.NullInt64) bool { return crc.Valid && crc.Int64 >= cpRelKind }

// checkRow checks a checkpoint row's integrity columns: all three NULL
// (written before migration 2, so with no values inline) or all set, and
// crc matching the row.
func checkRow(thread, ns string, r *cpRow, created any, versions, md []byte, crc sql.NullInt64) error {
	legacy := !crc.Valid && !r.prev.Valid && !r.nwrites.Valid
	if legacy && len(r.inline) > 0 {
		// Values inline came with migration 5, long after checksums:
		// such a row was damaged into looking legacy, and its values
		// are checked by nothing.
		return corruptError(thread, ns, r.id, "crc, prev and nwrites are NULL in a row with values inline, which has a checksum")
	}
	if legacy {
		r.legacy = true
		return nil
	}
	if !crc.Valid || !r.prev.Valid || !r.nwrites.Valid {
		return corruptError(thread, ns, r.id, "crc, prev and nwrites are neither all set nor all NULL")
	}
	r.rel = relCRC(crc)
	if crc.Int64 != cpChecksum(thread, ns, r.id, r.parent, created, versions, md, r.prev.String, r.inline, r.rel) {
		return corruptError(thread, ns, r.id, "the checkpoint row does not match its checksum")
	}
	return nil
}

// checkLink checks that older is the checkpoint that newer replaced as
// the head, when both were read in one walk of the history with nothing
// left out between them; older nil means newer is the oldest there is.
func checkLink(thread, ns string, newer, older *cpRow) error {
	switch {
	case newer.legacy:
		if older != nil && !older.legacy {
			return corruptError(thread, ns, newer.id, "a checkpoint without checksums after %q, which has them", older.id)
		}
		return nil
	case older == nil:
		if newer.prev.String != "" {
			return corruptError(thread, ns, newer.id, "the checkpoint before it, %q, is missing", newer.prev.String)
		}
	case older.legacy:
		if newer.prev.String != older.id {
			return corruptError(thread, ns, newer.id, "the checkpoint before it, %q, is missing", newer.prev.String)
		}
	case newer.prev.String == older.id:
	case newer.prev.String > older.id:
		return corruptError(thread, ns, newer.id, "the checkpoint before it, %q, is missing", newer.prev.String)
	default:
		return corruptError(thread, ns, older.id, "no checkpoint names it as the one before it (%q names %q)", newer.id, newer.prev.String)
	}
	return nil
}
