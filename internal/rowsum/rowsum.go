package rowsum

import (
	"hash/crc32"
	"slices"
	"unsafe"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Column kinds, framing each column in the sum.
const (
	kindString byte = 1 + iota
	kindBytes
	kindInt
	kindBool
)

// Sum accumulates the checksum of one row. The zero Sum is ready to use.
type Sum struct {
	crc uint32
}

// head adds a column's frame: its kind and n as a uvarint. It folds the
// few bytes in byte by byte (the table loop crc32.Update runs for short
// input) rather than through crc32.Update, whose argument escapes: a
// frame in a buffer of the Sum would move every Sum to the heap.
func (s *Sum) head(kind byte, n uint64) {
	crc := ^s.crc
	crc = castagnoli[byte(crc)^kind] ^ (crc >> 8)
	for n >= 0x80 {
		crc = castagnoli[byte(crc)^(byte(n)|0x80)] ^ (crc >> 8)
		n >>= 7
	}
	crc = castagnoli[byte(crc)^byte(n)] ^ (crc >> 8)
	s.crc = ^crc
}

// String adds a text column.
func (s *Sum) String(v string) *Sum {
	s.head(kindString, uint64(len(v)))
	if len(v) > 0 {
		s.crc = crc32.Update(s.crc, castagnoli, unsafe.Slice(unsafe.StringData(v), len(v)))
	}
	return s
}

// Bytes adds a binary column. A nil slice and an empty one add the same.
func (s *Sum) Bytes(v []byte) *Sum {
	s.head(kindBytes, uint64(len(v)))
	s.crc = crc32.Update(s.crc, castagnoli, v)
	return s
}

// Int adds an integer column.
func (s *Sum) Int(v int64) *Sum {
	s.head(kindInt, uint64(v))
	return s
}

// Bool adds a boolean column.
func (s *Sum) Bool(v bool) *Sum {
	var n uint64
	if v {
		n = 1
	}
	s.head(kindBool, n)
	return s
}

// StringMap adds a map of text to text (a checkpoint's versions), in the
// order of its keys.
func (s *Sum) StringMap(m map[string]string) *Sum {
	var stack [16]string // a small map's keys sort without an allocation
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s.head(kindInt, uint64(len(keys)))
	for _, k := range keys {
		s.String(k).String(m[k])
	}
	return s
}

// Value returns the CRC-32C of what was added.
func (s *Sum) Value() uint32 { return s.crc }
