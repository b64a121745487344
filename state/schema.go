package state

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Schema is the set of fields of S that a graph tracks. Fields of S not in
// the schema are invisible to the runtime: nodes cannot write them and
// checkpoints do not keep them.
type Schema[S any] struct {
	fields []*base[S]
	index  map[*base[S]]int
	byName map[string]int
	err    error

	version    int               // 0 means 1 (see Versioned)
	migrations map[int]Migration // from version v to v+1
}

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

// NewSchema returns the schema of the given fields, in that order.
// Problems (duplicate or invalid names, nil fields) are reported by Err
// and by the graph's Compile.
func NewSchema[S any](fields ...Field[S]) *Schema[S] {
	sc := &Schema[S]{index: make(map[*base[S]]int, len(fields)), byName: make(map[string]int, len(fields))}
	var errs []error
	for i, f := range fields {
		if f == nil {
			errs = append(errs, fmt.Errorf("state: schema field %d is nil", i))
			continue
		}
		b := f.field()
		_, dup := sc.byName[b.name]
		switch {
		case !validName.MatchString(b.name) || strings.HasPrefix(b.name, "__"):
			errs = append(errs, fmt.Errorf("state: field name %q is invalid: use letters, digits, '_', '.', '-', not starting with a digit or \"__\"", b.name))
			continue
		case dup:
			errs = append(errs, fmt.Errorf("state: field name %q is declared twice", b.name))
			continue
		}
		sc.index[b] = len(sc.fields)
		sc.byName[b.name] = len(sc.fields)
		sc.fields = append(sc.fields, b)
	}
	sc.err = errors.Join(errs...)
	return sc
}

// Err reports what is wrong with the schema, or nil.
func (sc *Schema[S]) Err() error { return sc.err }

// Len returns the number of fields.
func (sc *Schema[S]) Len() int { return len(sc.fields) }

// Name returns the name of field i.
func (sc *Schema[S]) Name(i int) string { return sc.fields[i].name }

// Kind returns the reducer of field i.
func (sc *Schema[S]) Kind(i int) Kind { return sc.fields[i].kind }

// Index returns the position of the named field, or -1.
func (sc *Schema[S]) Index(name string) int {
	if i, ok := sc.byName[name]; ok {
		return i
	}
	return -1
}

// IndexOf returns the position of the field a write sets, or -1 when the
// field is not in the schema.
func (sc *Schema[S]) IndexOf(w Write[S]) int {
	if i, ok := sc.index[w.key]; ok {
		return i
	}
	return -1
}

// Encode encodes the value of field i in s.
func (sc *Schema[S]) Encode(s *S, i int, c Codec) ([]byte, error) {
	return sc.fields[i].ops.encode(s, c)
}

// FieldLen returns the length of field i's value in s for slice fields,
// and 0 for the others.
func (sc *Schema[S]) FieldLen(s *S, i int) int { return sc.fields[i].ops.length(s) }

// EncodeTail encodes the elements of slice field i from index from on:
// the delta an append field grew by since it had from elements.
func (sc *Schema[S]) EncodeTail(s *S, i, from int, c Codec) ([]byte, error) {
	return sc.fields[i].ops.encodeTail(s, from, c)
}

// Decode sets field i of s from a snapshot followed by deltas (elements
// appended after it, oldest first).
func (sc *Schema[S]) Decode(s *S, i int, snapshot []byte, deltas [][]byte, c Codec) error {
	return sc.fields[i].ops.decode(s, snapshot, deltas, c)
}

// Zero sets field i of s to its zero value.
func (sc *Schema[S]) Zero(s *S, i int) { sc.fields[i].ops.zero(s) }

// Equal reports whether field i holds equal values in a and b.
func (sc *Schema[S]) Equal(a, b *S, i int) bool { return sc.fields[i].ops.equal(a, b) }

// overwritePrefix marks an encoded overwrite write's channel.
const overwritePrefix = "!"

// EncodeWrite encodes a write as a channel name and the encoded value.
func (sc *Schema[S]) EncodeWrite(w Write[S], c Codec) (channel string, data []byte, err error) {
	if sc.IndexOf(w) < 0 {
		return "", nil, fmt.Errorf("%w: field %q is not in the schema", ErrInvalidUpdate, w.Field())
	}
	data, err = c.Marshal(w.value)
	if err != nil {
		return "", nil, fmt.Errorf("state: encode write to field %q: %w", w.Field(), err)
	}
	channel = w.key.name
	if w.overwrite {
		channel = overwritePrefix + channel
	}
	return channel, data, nil
}

// DecodeWrite decodes a write that EncodeWrite made.
func (sc *Schema[S]) DecodeWrite(channel string, data []byte, c Codec) (Write[S], error) {
	name, overwrite := strings.CutPrefix(channel, overwritePrefix)
	i := sc.Index(name)
	if i < 0 {
		return Write[S]{}, fmt.Errorf("state: decode write: no field %q in the schema", name)
	}
	b := sc.fields[i]
	v, err := b.ops.decodeValue(data, c)
	if err != nil {
		return Write[S]{}, fmt.Errorf("state: decode write: %w", err)
	}
	return Write[S]{key: b, value: v, overwrite: overwrite}, nil
}

// EncodeState encodes every field of s by name.
func (sc *Schema[S]) EncodeState(s *S, c Codec) (map[string][]byte, error) {
	out := make(map[string][]byte, len(sc.fields))
	for i, f := range sc.fields {
		data, err := f.ops.encode(s, c)
		if err != nil {
			return nil, fmt.Errorf("state: encode field %q: %w", f.name, err)
		}
		out[sc.fields[i].name] = data
	}
	return out, nil
}

// DecodeState decodes what EncodeState made. Fields missing from m keep
// their zero value; a name that is not a field is an error.
func (sc *Schema[S]) DecodeState(m map[string][]byte, c Codec) (S, error) {
	var s S
	for name, data := range m {
		i := sc.Index(name)
		if i < 0 {
			return s, fmt.Errorf("state: decode state: no field %q in the schema", name)
		}
		if err := sc.fields[i].ops.decode(&s, data, nil, c); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Diff returns the writes that take from to to: the new value of a
// last-value field, the appended tail of an append field, the difference
// of a sum field, and an overwrite for anything else that changed. It is
// how a subgraph's result becomes its parent's update.
func (sc *Schema[S]) Diff(from, to *S) []Write[S] { return sc.AppendDiff(nil, from, to) }

// AppendDiff is Diff appending to dst, for a caller that reuses its
// memory.
func (sc *Schema[S]) AppendDiff(dst []Write[S], from, to *S) []Write[S] {
	for _, f := range sc.fields {
		if w, ok := f.ops.diff(from, to); ok {
			dst = append(dst, w)
		}
	}
	return dst
}

// CopyField sets field i of dst to its value in src (shared, not cloned).
func (sc *Schema[S]) CopyField(dst, src *S, i int) { sc.fields[i].ops.copyField(dst, src) }

// CopyPrefix sets slice field i of dst to the first n elements of its
// value in src (shared, capacity capped at n so appends copy). It reports
// false when the field is not a slice or is shorter than n.
func (sc *Schema[S]) CopyPrefix(dst, src *S, i, n int) bool {
	return sc.fields[i].ops.copyPrefix(dst, src, n)
}

// CloneAppends gives every append field of s a backing array of its own,
// exactly as long as the slice, so that neither appends to s nor changes
// to its elements reach a state it was copied from.
func (sc *Schema[S]) CloneAppends(s *S) {
	for _, f := range sc.fields {
		if f.kind == KindAppend {
			f.ops.cloneSlice(s)
		}
	}
}
