package state

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// keyOps implements fieldOps for a Key[S, T].
type keyOps[S, T any] struct{ k *Key[S, T] }

func (o keyOps[S, T]) apply(s *S, ws []*Write[S], private bool) (bool, error) {
	k := o.k
	p := k.get(s)
	if k.kind == KindValue {
		v, err := valueOf[S, T](k.name, ws[0])
		if err != nil {
			return false, err
		}
		*p = v
		return false, nil
	}
	for _, w := range ws {
		if w.overwrite {
			v, err := valueOf[S, T](k.name, w)
			if err != nil {
				return false, err
			}
			*p = v
			return false, nil // the caller marks overwrites itself
		}
	}
	v := *p
	if private && k.kind == KindAppend {
		v = clip(v)
	}
	rewrote := false
	for _, w := range ws {
		u, err := valueOf[S, T](k.name, w)
		if err != nil {
			return false, err
		}
		if k.reportAppend != nil {
			var appended bool
			v, appended = k.reportAppend(v, u)
			rewrote = rewrote || !appended
			continue
		}
		v = k.reduce(v, u)
	}
	*p = v
	return rewrote, nil
}

// clip caps a slice's capacity at its length, so the next append copies
// instead of writing into memory another state may share.
func clip[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if rv.Kind() == reflect.Slice {
		rv.Set(rv.Slice3(0, rv.Len(), rv.Len()))
	}
	return v
}

func valueOf[S, T any](field string, w *Write[S]) (T, error) {
	v, ok := w.value.(T)
	if !ok && w.value != nil {
		var zero T
		return zero, fmt.Errorf("%w: field %q holds %T, got a write of %T", ErrInvalidUpdate, field, zero, w.value)
	}
	return v, nil
}

func (o keyOps[S, T]) zero(s *S) {
	var z T
	*o.k.get(s) = z
}

func (o keyOps[S, T]) length(s *S) int {
	rv := reflect.ValueOf(o.k.get(s)).Elem()
	if rv.Kind() == reflect.Slice {
		return rv.Len()
	}
	return 0
}

func (o keyOps[S, T]) encode(s *S, c Codec) ([]byte, error) {
	return c.Marshal(*o.k.get(s))
}

func (o keyOps[S, T]) encodeTail(s *S, from int, c Codec) ([]byte, error) {
	rv := reflect.ValueOf(o.k.get(s)).Elem()
	if rv.Kind() != reflect.Slice || from > rv.Len() {
		return nil, fmt.Errorf("state: field %q: no tail from %d", o.k.name, from)
	}
	return c.Marshal(rv.Slice(from, rv.Len()).Interface())
}

func (o keyOps[S, T]) decode(s *S, snapshot []byte, deltas [][]byte, c Codec) error {
	k := o.k
	if o.decodeJoined(s, snapshot, deltas, c) {
		return nil
	}
	var v T
	if err := c.Unmarshal(snapshot, &v); err != nil {
		return fmt.Errorf("state: field %q: %w", k.name, err)
	}
	for i, d := range deltas {
		var u T
		if err := c.Unmarshal(d, &u); err != nil {
			return fmt.Errorf("state: field %q: delta %d: %w", k.name, i, err)
		}
		switch {
		case k.grow != nil: // a delta holds appended elements only
			v = k.grow(v, u)
		case k.reduce == nil:
			return fmt.Errorf("state: field %q: a last-value field has no deltas", k.name)
		default:
			v = k.reduce(v, u)
		}
	}
	*k.get(s) = v
	return nil
}

func (o keyOps[S, T]) decodeValue(data []byte, c Codec) (any, error) {
	var v T
	err := c.Unmarshal(data, &v)
	if err != nil && o.k.decodeOne != nil && !isJSONList(data) {
		// One element for a list of one (AppendReduce); its own error
		// names what is wrong inside it.
		one, oneErr := o.k.decodeOne(data, c)
		if oneErr == nil {
			return one, nil
		}
		return nil, fmt.Errorf("state: field %q: %w", o.k.name, oneErr)
	}
	if err != nil {
		return nil, fmt.Errorf("state: field %q%s: %w", o.k.name, badElement[T](data), err)
	}
	return v, nil
}

// isJSONList reports whether data is (begins as) a JSON list.
func isJSONList(data []byte) bool {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '['
	}
	return false
}

// badElement returns " [i]" for the first element of data, a JSON list
// for a slice field, that does not decode alone as an element of T, so a
// refused write names the element at fault; "" when data is not such a
// list (a codec's own bytes) or no one element fails alone.
func badElement[T any](data []byte) string { return badElementOf(reflect.TypeFor[T](), data) }

// badElementOf is badElement for a type known at run time.
func badElementOf(t reflect.Type, data []byte) string {
	if t.Kind() != reflect.Slice || len(data) == 0 || data[0] != '[' {
		return ""
	}
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) != nil {
		return ""
	}
	for i, e := range elems {
		if json.Unmarshal(e, reflect.New(t.Elem()).Interface()) != nil {
			return fmt.Sprintf(" [%d]", i)
		}
	}
	return ""
}

func (o keyOps[S, T]) equal(a, b *S) bool {
	return deepEqual(reflect.ValueOf(o.k.get(a)).Elem(), reflect.ValueOf(o.k.get(b)).Elem())
}

func (o keyOps[S, T]) diff(from, to *S) (Write[S], bool) {
	k := o.k
	pa, pb := k.get(from), k.get(to)
	ra, rb := reflect.ValueOf(pa).Elem(), reflect.ValueOf(pb).Elem()
	if deepEqual(ra, rb) {
		return Write[S]{}, false
	}
	a, b := *pa, *pb
	switch k.kind {
	case KindValue:
		return k.Set(b), true
	case KindSum:
		return k.Set(k.minus(b, a)), true
	case KindAppend:
		if tail, ok := appendedTail(ra, rb); ok {
			if !tail.IsValid() {
				return Write[S]{}, false // nil and empty: nothing appended
			}
			return Write[S]{key: &k.base, value: tail.Interface()}, true
		}
	}
	return k.Overwrite(b), true
}

// appendedTail returns the elements slice rb appended to slice ra, and
// false when ra is not a prefix of rb; the Value is invalid when both are
// empty (nil and empty: nothing appended).
func appendedTail(ra, rb reflect.Value) (reflect.Value, bool) {
	if ra.Len() == 0 && rb.Len() == 0 {
		return reflect.Value{}, true
	}
	// An empty prefix always matches: DeepEqual tells a nil slice's [:0]
	// from a non-nil one's, which would make an append to a nil field
	// look like an overwrite. A prefix in the same memory matches without
	// a comparison.
	if rb.Len() >= ra.Len() && (ra.Len() == 0 || ra.Pointer() == rb.Pointer() ||
		reflect.DeepEqual(rb.Slice(0, ra.Len()).Interface(), ra.Interface())) {
		return rb.Slice(ra.Len(), rb.Len()), true
	}
	return reflect.Value{}, false
}

func (o keyOps[S, T]) at(s *S) reflect.Value { return reflect.ValueOf(o.k.get(s)).Elem() }

func (o keyOps[S, T]) copyField(dst, src *S) { *o.k.get(dst) = *o.k.get(src) }

func (o keyOps[S, T]) copyPrefix(dst, src *S, n int) bool {
	rv := reflect.ValueOf(o.k.get(src)).Elem()
	if rv.Kind() != reflect.Slice || n > rv.Len() {
		return false
	}
	reflect.ValueOf(o.k.get(dst)).Elem().Set(rv.Slice3(0, n, n))
	return true
}

func (o keyOps[S, T]) cloneSlice(s *S) {
	rv := reflect.ValueOf(o.k.get(s)).Elem()
	if rv.Kind() != reflect.Slice || rv.IsNil() {
		return
	}
	c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	reflect.Copy(c, rv)
	rv.Set(c)
}

// deepEqual is reflect.DeepEqual of two values of one type, without
// boxing them when a cheap comparison decides: scalars by value, slices
// and maps by length, nil-ness and memory. History diffs every field of
// every checkpoint with it (Schema.Diff), so the common cases must not
// allocate.
func deepEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float() // NaN is unequal to itself, as for DeepEqual
	case reflect.Slice, reflect.Map:
		switch {
		case a.IsNil() != b.IsNil() || a.Len() != b.Len():
			return false
		case a.Pointer() == b.Pointer():
			return true
		}
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
