package sqlite

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Small values live in their checkpoint's row (schema version 5): a Put
// that stores a checkpoint with small new blobs writes one row of one
// B-tree, where a blobs row per value would add a second B-tree's pages
// to every commit.
//
// A blob goes into the inline column of the checkpoint that stores it when
// its version belongs to that checkpoint — the version is the checkpoint's
// id, or the id followed by "." and anything (the runtime names every
// version so) — when it is not a delta (see inlineCandidate), and when it
// is small enough to keep the row on one page (see chooseInline). Every
// other blob, and every blob of a row written before migration 5, is a
// row of the blobs table as before. A reader
// looking for the blob of (channel, version) therefore looks first in the
// inline column of the checkpoint the version's owner names, then in the
// blobs table: versions are unique within a thread and namespace, so the
// two never disagree about a blob the runtime stored.
//
// The inline column is covered by the checkpoint row's checksum
// (cpInlineKind). Its bytes: a format byte (inlineFormat), then for each
// blob, in channel order: the channel, the version's suffix after the id,
// a flag byte (inlineDelta, inlineNil), the base and the data, each of
// the four strings as a uvarint length and its bytes.

// inlineFormat is the first byte of an inline column.
const inlineFormat = 1

// The bits of a blob's flag byte.
const (
	inlineDelta = 1 // the blob is a delta
	inlineNil   = 2 // its data is nil (not empty)
)

// Limits of what goes inline. A WITHOUT ROWID table keeps at most about a
// quarter of a 4 KiB page of a row on its leaf (1,002 bytes) and spills
// the rest to overflow pages, so a row stays under maxInlineRow; one blob
// takes at most maxInlineBlob, so a large value does not crowd out the
// small ones.
const (
	maxInlineRow  = 960
	maxInlineBlob = 512
)

// versionOwner returns the id of the checkpoint that a version belongs
// to: the version up to its first ".", or all of it.
func versionOwner(v string) string {
	if i := strings.IndexByte(v, '.'); i >= 0 {
		return v[:i]
	}
	return v
}

// inlineBlob is one blob of an inline column.
type inlineBlob struct {
	channel, version string
	blob             checkpoint.Blob
}

// inlineCandidate reports whether the new blob b of channel ch of
// checkpoint id may go inline: its version belongs to the checkpoint, it
// is small, and it is not a delta. Deltas stay blob rows because a read
// follows a delta chain link by link: through blob rows that is one
// recursive query for the whole chain, through inline columns one query
// a link (an append field's newest value has a chain of some twenty
// links), which made the latest state of a long history slower to read.
func inlineCandidate(id, ch string, b checkpoint.Blob, versions map[string]string) bool {
	return !b.Delta && len(b.Data) <= maxInlineBlob && versionOwner(blobVersion(ch, b, versions)) == id
}

// chooseInline returns, encoded, the new blobs of checkpoint id that go
// inline (nil when none does); the caller stores the others as blob
// rows. rowSize is the size of the rest of the row. When every candidate
// fits, all is set (a blob is inline if it is a candidate); otherwise
// some holds the blobs inline, the candidates that fit in channel order.
func chooseInline(id string, rowSize int, blobs map[string]checkpoint.Blob, versions map[string]string) (out []byte, all bool, some []inlineBlob) {
	size, n := 1, 0
	for ch, b := range blobs {
		if inlineCandidate(id, ch, b, versions) {
			size += inlineSize(id, inlineBlob{channel: ch, version: blobVersion(ch, b, versions), blob: b})
			n++
		}
	}
	if n == 0 {
		return nil, false, nil
	}
	if rowSize+size <= maxInlineRow {
		// The usual case: no list, no sort (the order of the blobs in
		// the column does not matter to a reader).
		out = make([]byte, 1, size)
		out[0] = inlineFormat
		for ch, b := range blobs {
			if inlineCandidate(id, ch, b, versions) {
				out = appendInline(out, id, inlineBlob{channel: ch, version: blobVersion(ch, b, versions), blob: b})
			}
		}
		return out, true, nil
	}
	cands := make([]inlineBlob, 0, n)
	for ch, b := range blobs {
		if inlineCandidate(id, ch, b, versions) {
			cands = append(cands, inlineBlob{channel: ch, version: blobVersion(ch, b, versions), blob: b})
		}
	}
	slices.SortFunc(cands, func(a, b inlineBlob) int { return strings.Compare(a.channel, b.channel) })
	size = 1
	kept := cands[:0]
	for _, c := range cands {
		if n := inlineSize(id, c); rowSize+size+n <= maxInlineRow {
			size += n
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return nil, false, nil
	}
	out = make([]byte, 1, size)
	out[0] = inlineFormat
	for _, c := range kept {
		out = appendInline(out, id, c)
	}
	return out, false, kept
}

// uvarintLen is the length of n as a uvarint.
func uvarintLen(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

// inlineSize is what appendInline adds for c.
func inlineSize(id string, c inlineBlob) int {
	suffix := len(c.version) - len(id)
	return uvarintLen(len(c.channel)) + len(c.channel) + uvarintLen(suffix) + suffix + 1 +
		uvarintLen(len(c.blob.Base)) + len(c.blob.Base) + uvarintLen(len(c.blob.Data)) + len(c.blob.Data)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendInline appends the encoding of c, a blob of checkpoint id.
func appendInline(b []byte, id string, c inlineBlob) []byte {
	b = appendString(b, c.channel)
	b = appendString(b, c.version[len(id):])
	var flag byte
	if c.blob.Delta {
		flag |= inlineDelta
	}
	if c.blob.Data == nil {
		flag |= inlineNil
	}
	b = append(b, flag)
	b = appendString(b, c.blob.Base)
	b = binary.AppendUvarint(b, uint64(len(c.blob.Data)))
	return append(b, c.blob.Data...)
}

var errInline = errors.New("the inline values cannot be decoded")

// inlineEntry is one blob of an inline column as it is stored: slices of
// the column.
type inlineEntry struct {
	channel, suffix, base, data []byte
	flag                        byte
}

// inlineReader walks the blobs of an inline column without copying them.
type inlineReader struct{ rest []byte }

// newInlineReader returns a reader of the column b, or errInline when b
// is not of the format this package writes. An empty b has no blobs.
func newInlineReader(b []byte) (inlineReader, error) {
	if len(b) == 0 {
		return inlineReader{}, nil
	}
	if b[0] != inlineFormat {
		return inlineReader{}, errInline
	}
	return inlineReader{rest: b[1:]}, nil
}

func (r *inlineReader) field() ([]byte, bool) {
	n, k := binary.Uvarint(r.rest)
	if k <= 0 || n > uint64(len(r.rest)-k) {
		return nil, false
	}
	s := r.rest[k : k+int(n) : k+int(n)]
	r.rest = r.rest[k+int(n):]
	return s, true
}

// next returns the next blob; false at the end. A column that does not
// decode is errInline.
func (r *inlineReader) next() (inlineEntry, bool, error) {
	var e inlineEntry
	if len(r.rest) == 0 {
		return e, false, nil
	}
	var ok1, ok2, ok3, ok4 bool
	e.channel, ok1 = r.field()
	e.suffix, ok2 = r.field()
	if !ok1 || !ok2 || len(r.rest) == 0 || r.rest[0]&^(inlineDelta|inlineNil) != 0 {
		return e, false, errInline
	}
	e.flag = r.rest[0]
	r.rest = r.rest[1:]
	e.base, ok3 = r.field()
	e.data, ok4 = r.field()
	if !ok3 || !ok4 || (e.flag&inlineNil != 0 && len(e.data) > 0) {
		return e, false, errInline
	}
	if e.flag&inlineNil != 0 {
		e.data = nil
	}
	return e, true, nil
}

// row returns the blob as read.
func (e *inlineEntry) row() blobRow {
	return blobRow{delta: e.flag&inlineDelta != 0, base: string(e.base), data: e.data}
}

// eachInline calls fn with every blob of the inline column b of
// checkpoint id; the data it passes are slices of b. A column that does
// not decode is errInline (fn may have been called for the blobs before
// the damage).
func eachInline(b []byte, id string, fn func(channel, version string, delta bool, base string, data []byte)) error {
	r, err := newInlineReader(b)
	for err == nil {
		e, ok, nerr := r.next()
		if nerr != nil || !ok {
			return nerr
		}
		fn(string(e.channel), id+string(e.suffix), e.flag&inlineDelta != 0, string(e.base), e.data)
	}
	return err
}

// findInline returns the blob of channel ch at version v in the inline
// column b of checkpoint id (v belongs to id), decoding that one alone;
// false when it is not there. The whole column is walked, so a column
// that does not decode is errInline whichever blob is asked for.
func findInline(b []byte, id, ch, v string) (blobRow, bool, error) {
	r, err := newInlineReader(b)
	if err != nil {
		return blobRow{}, false, err
	}
	var found blobRow
	ok := false
	for {
		e, more, err := r.next()
		if err != nil {
			return blobRow{}, false, err
		}
		if !more {
			return found, ok, nil
		}
		if !ok && string(e.channel) == ch && len(v) == len(id)+len(e.suffix) && v[len(id):] == string(e.suffix) {
			found, ok = e.row(), true
		}
	}
}

// inlineArg is the inline column's argument: NULL when there is none.
func inlineArg(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
