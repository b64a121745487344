package postgres

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stategraph/stategraph/checkpoint"
)

// The rows of a read are decoded by hand from the bytes pgx receives
// (pgx.Rows.RawValues) rather than through Scan's reflection: integers,
// booleans and timestamps in PostgreSQL's binary format, text as it is,
// and the versions and metadata columns from the text jsonb gives back
// when they hold what Put writes (strings without escapes, metadata
// without Extra). Anything else — a value in text format (a pool set to
// the simple protocol), an escape, Extra — goes through pgx's codecs and
// encoding/json, as before, so a row reads the same either way. A
// history reads thousands of rows whose strings repeat (channel names,
// versions, the run id, the parent that is the next row's id): an
// interner makes each of them once per List.

// interner returns one string for equal byte slices. The zero value is
// ready to use.
type interner struct{ m map[string]string }

// maxInterned caps an interner's strings.
const maxInterned = 8192

func (in *interner) str(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string, 64)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// rawRow is the current row of a result, as pgx received it.
type rawRow struct {
	rows   pgx.Rows
	fields []pgconnField
	vals   [][]byte
}

// pgconnField is what rawRow needs of a column's description.
type pgconnField struct {
	oid    uint32
	format int16
}

func newRawRow(rows pgx.Rows) rawRow {
	fds := rows.FieldDescriptions()
	fields := make([]pgconnField, len(fds))
	for i, fd := range fds {
		fields[i] = pgconnField{oid: fd.DataTypeOID, format: fd.Format}
	}
	return rawRow{rows: rows, fields: fields}
}

// next moves to the next row.
func (r *rawRow) next() bool {
	if !r.rows.Next() {
		return false
	}
	r.vals = r.rows.RawValues()
	return true
}

// bytes returns column i as received (nil for NULL): the text of a text
// or jsonb column, the data of a bytea in binary format. It is valid
// until the next row.
func (r *rawRow) bytes(i int) ([]byte, error) {
	v := r.vals[i]
	if v == nil || r.fields[i].oid != pgtype.ByteaOID || r.fields[i].format == pgtype.BinaryFormatCode {
		return v, nil
	}
	var b []byte
	if err := r.scan(i, &b); err != nil {
		return nil, err
	}
	return b, nil
}

// int returns the integer column i, and false for NULL.
func (r *rawRow) int(i int) (int64, bool, error) {
	v := r.vals[i]
	if v == nil {
		return 0, false, nil
	}
	if r.fields[i].format == pgtype.BinaryFormatCode {
		switch len(v) {
		case 2:
			return int64(int16(binary.BigEndian.Uint16(v))), true, nil
		case 4:
			return int64(int32(binary.BigEndian.Uint32(v))), true, nil
		case 8:
			return int64(binary.BigEndian.Uint64(v)), true, nil
		}
	}
	var n int64
	err := r.scan(i, &n)
	return n, err == nil, err
}

// bool returns the boolean column i (false for NULL).
func (r *rawRow) bool(i int) (bool, error) {
	v := r.vals[i]
	if v == nil {
		return false, nil
	}
	if r.fields[i].format == pgtype.BinaryFormatCode && len(v) == 1 {
		return v[0] != 0, nil
	}
	var b bool
	err := r.scan(i, &b)
	return b, err
}

// pgEpochMicros is 2000-01-01 00:00:00 UTC, PostgreSQL's epoch, in
// microseconds since the Unix epoch.
const pgEpochMicros = 946684800 * 1000000

// time returns the timestamptz column i as pgx scans it (the local
// time of the instant).
func (r *rawRow) time(i int) (time.Time, error) {
	v := r.vals[i]
	if v != nil && r.fields[i].format == pgtype.BinaryFormatCode && len(v) == 8 {
		us := int64(binary.BigEndian.Uint64(v))
		if us != math.MaxInt64 && us != math.MinInt64 { // ±infinity
			us += pgEpochMicros
			return time.Unix(us/1000000, (us%1000000)*1000), nil
		}
	}
	var t time.Time
	err := r.scan(i, &t)
	return t, err
}

// scan decodes column i through pgx's codecs, for what the fast paths
// do not read.
func (r *rawRow) scan(i int, dst any) error {
	f := r.fields[i]
	if err := r.rows.Conn().TypeMap().Scan(f.oid, f.format, r.vals[i], dst); err != nil {
		return fmt.Errorf("column %d: %w", i, err)
	}
	return nil
}

// jsonScan reads JSON in the form jsonb gives it back ({"a": "b"}), and
// fails (ok false) at anything the fast path does not read.
type jsonScan struct {
	b  []byte
	ok bool
}

func (p *jsonScan) space() {
	for len(p.b) > 0 && p.b[0] == ' ' {
		p.b = p.b[1:]
	}
}

// lit reads the byte c, after spaces.
func (p *jsonScan) lit(c byte) {
	p.space()
	if !p.ok || len(p.b) == 0 || p.b[0] != c {
		p.ok = false
		return
	}
	p.b = p.b[1:]
}

// peek reports whether c comes next, after spaces.
func (p *jsonScan) peek(c byte) bool {
	p.space()
	return p.ok && len(p.b) > 0 && p.b[0] == c
}

// str reads a string without escapes or control characters, and returns
// its bytes (the caller checks the column is valid UTF-8).
func (p *jsonScan) str() []byte {
	if !p.peek('"') {
		p.ok = false
		return nil
	}
	for i := 1; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			s := p.b[1:i]
			p.b = p.b[i+1:]
			return s
		case c < 0x20 || c == '\\':
			p.ok = false
			return nil
		}
	}
	p.ok = false
	return nil
}

// int reads an integer without exponent or fraction that fits an int.
func (p *jsonScan) int() int {
	p.space()
	i := 0
	if i < len(p.b) && p.b[i] == '-' {
		i++
	}
	start := i
	for i < len(p.b) && p.b[i] >= '0' && p.b[i] <= '9' {
		i++
	}
	if !p.ok || i == start || i-start > 18 {
		p.ok = false
		return 0
	}
	n, err := strconv.Atoi(string(p.b[:i]))
	if err != nil {
		p.ok = false
		return 0
	}
	p.b = p.b[i:]
	return n
}

// sep reads the comma before member or element i of an object or array.
func (p *jsonScan) sep(i int) {
	if i > 0 {
		p.lit(',')
	}
}

// key reads the key of member i of an object, with the comma before it
// and the colon after it.
func (p *jsonScan) key(i int) []byte {
	p.sep(i)
	k := p.str()
	p.lit(':')
	return k
}

// end reports whether the whole input was read.
func (p *jsonScan) end() bool {
	p.space()
	return p.ok && len(p.b) == 0
}

// plainText reports whether a JSON column may take the fast path: valid
// UTF-8 (encoding/json replaces invalid bytes, the fast path would not).
func plainText(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// versionsDecoder reads versions columns, reusing the strings of the row
// read before (a history's consecutive checkpoints share most versions).
type versionsDecoder struct {
	in   *interner
	last []pair // the previous row's pairs, in column order
	cur  []pair
}

type pair struct{ k, v string }

// decode returns the versions column b as json.Unmarshal does into a
// map[string]string, with the error it would give; own is the row's
// checkpoint id, which the runtime's reserved channels use as a version.
func (d *versionsDecoder) decode(b []byte, own string) (map[string]string, error) {
	if m, ok := d.fast(b, own); ok {
		return m, nil
	}
	d.last = d.last[:0]
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func (d *versionsDecoder) fast(b []byte, own string) (map[string]string, bool) {
	if !plainText(b) {
		return nil, false
	}
	p := jsonScan{b: b, ok: true}
	p.lit('{')
	d.cur = d.cur[:0]
	for i := 0; p.ok && !p.peek('}'); i++ {
		k := p.key(i)
		v := p.str()
		if !p.ok {
			break
		}
		var kv pair
		switch {
		case i < len(d.last) && d.last[i].k == string(k):
			kv.k = d.last[i].k
			if d.last[i].v == string(v) {
				kv.v = d.last[i].v
			}
		default:
			kv.k = d.in.str(k)
		}
		if kv.v == "" {
			if own == string(v) {
				kv.v = own
			} else {
				kv.v = d.in.str(v)
			}
		}
		d.cur = append(d.cur, kv)
	}
	p.lit('}')
	if !p.end() {
		return nil, false
	}
	m := make(map[string]string, len(d.cur))
	for _, kv := range d.cur {
		m[kv.k] = kv.v
	}
	if len(m) != len(d.cur) {
		return nil, false // a repeated key: not what jsonb gives back
	}
	d.last, d.cur = d.cur, d.last
	return m, true
}

// decodeMetadata returns the metadata column b as json.Unmarshal does
// into a checkpoint.Metadata, with the error it would give, and its
// canonical form (canonicalMetadata), appended to buf.
func decodeMetadata(b []byte, in *interner, buf []byte) (checkpoint.Metadata, []byte, error) {
	if md, ok := fastMetadata(b, in); ok {
		if n, ok := metadataSize(md); ok {
			return md, appendMetadata(slices.Grow(buf, n), md), nil
		}
	}
	if m := bytes.TrimSpace(b); len(m) == 0 || m[0] != '{' {
		return checkpoint.Metadata{}, nil, fmt.Errorf("%q is not a JSON object", truncate(b))
	}
	var md checkpoint.Metadata
	if err := json.Unmarshal(b, &md); err != nil {
		return md, nil, err
	}
	canon, err := json.Marshal(md)
	return md, append(buf, canon...), err
}

// fastMetadata reads the metadata column b when it holds only the
// standard keys, with strings the fast path reads.
func fastMetadata(b []byte, in *interner) (checkpoint.Metadata, bool) {
	var md checkpoint.Metadata
	if !plainText(b) {
		return md, false
	}
	p := jsonScan{b: b, ok: true}
	p.lit('{')
	for i := 0; p.ok && !p.peek('}'); i++ {
		key := p.key(i)
		switch string(key) {
		case "source":
			md.Source = checkpoint.Source(in.str(p.str()))
		case "step":
			md.Step = p.int()
		case "run_id":
			md.RunID = in.str(p.str())
		case "nodes":
			p.lit('[')
			for j := 0; p.ok && !p.peek(']'); j++ {
				p.sep(j)
				if node := p.str(); p.ok {
					md.Nodes = append(md.Nodes, in.str(node))
				}
			}
			p.lit(']')
			p.ok = p.ok && md.Nodes != nil // [] decodes to an empty, non-nil slice
		case "parents":
			p.lit('{')
			for j := 0; p.ok && !p.peek('}'); j++ {
				k := p.key(j)
				v := p.str()
				if p.ok {
					if md.Parents == nil {
						md.Parents = map[string]string{}
					}
					md.Parents[in.str(k)] = in.str(v)
				}
			}
			p.lit('}')
			p.ok = p.ok && md.Parents != nil
		default: // extra, or a key encoding/json matches another way
			return md, false
		}
	}
	p.lit('}')
	return md, p.end()
}

// plainJSON reports whether json.Marshal writes s as itself between
// quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// metadataSize returns an upper bound of the size of md as json.Marshal
// writes it, and false when md needs json.Marshal (Extra, or strings it
// escapes).
func metadataSize(md checkpoint.Metadata) (int, bool) {
	if md.Extra != nil || !plainJSON(string(md.Source)) || !plainJSON(md.RunID) {
		return 0, false
	}
	// {"source":"","step":-9223372036854775808,"parents":{},"run_id":"","nodes":[]}
	n := 80 + len(md.Source) + len(md.RunID)
	for k, v := range md.Parents {
		if !plainJSON(k) || !plainJSON(v) {
			return 0, false
		}
		n += len(k) + len(v) + 6
	}
	for _, node := range md.Nodes {
		if !plainJSON(node) {
			return 0, false
		}
		n += len(node) + 3
	}
	return n, true
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendMetadata appends md as json.Marshal writes it, for md that
// metadataSize accepts.
func appendMetadata(b []byte, md checkpoint.Metadata) []byte {
	b = append(b, `{"source":`...)
	b = appendQuoted(b, string(md.Source))
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(md.Step), 10)
	if len(md.Parents) > 0 {
		b = append(b, `,"parents":{`...)
		var stack [4]string
		keys := stack[:0]
		for k := range md.Parents {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = appendQuoted(b, md.Parents[k])
		}
		b = append(b, '}')
	}
	if md.RunID != "" {
		b = append(b, `,"run_id":`...)
		b = appendQuoted(b, md.RunID)
	}
	if len(md.Nodes) > 0 {
		b = append(b, `,"nodes":[`...)
		for i, node := range md.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, node)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
