package inspect

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
)

// The kinds of a Change.
const (
	Added    = "added"    // the field has a value in B only
	Removed  = "removed"  // the field has a value in A only
	Changed  = "changed"  // the value differs
	Appended = "appended" // B's array is A's with elements appended
)

// Change is one field that differs between two checkpoints A and B.
type Change struct {
	Field string `json:"field"`
	// Kind is Added, Removed, Changed or Appended.
	Kind string `json:"change"`
	// Appended is the number of elements B appended to A's array.
	Appended int `json:"appended,omitempty"`
	// Before is A's value (absent when Added), After is B's (absent when
	// Removed).
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
	// Paths are the changes inside the field, leaf by leaf, when A's and
	// B's values are both objects or both arrays (for Appended, the
	// elements appended): each names its path (see Select), so a nested
	// change shows in full however deep it is.
	Paths []PathChange `json:"paths,omitempty"`
}

// PathChange is one value inside a field that differs between A and B:
// a key or an element that only one has, or a value that differs and is
// not an object or array in both (those are walked into).
type PathChange struct {
	// Path is where the value is, as Select reads it: drafts.2,
	// plan.steps.0.status.
	Path string `json:"path"`
	// Kind is Added, Removed or Changed.
	Kind string `json:"change"`
	// Before is A's value (absent when Added), After is B's (absent when
	// Removed), as compact JSON with sorted keys.
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// Diff returns the fields whose values differ from a to b, by field
// name. Values compare as JSON values, so formatting and key order do not
// count.
func Diff(a, b map[string]json.RawMessage) []Change {
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	all := make(map[string]json.RawMessage, len(names))
	for n := range names {
		all[n] = nil
	}
	out := []Change{}
	for _, n := range Fields(all) {
		va, inA := a[n]
		vb, inB := b[n]
		switch {
		case !inA:
			out = append(out, Change{Field: n, Kind: Added, After: vb})
		case !inB:
			out = append(out, Change{Field: n, Kind: Removed, Before: va})
		case !sameJSON(va, vb):
			c := Change{Field: n, Kind: Changed, Before: va, After: vb, Paths: leaves(n, va, vb)}
			if k := appended(va, vb); k > 0 {
				c.Kind, c.Appended, c.Paths = Appended, k, tail(n, vb, k)
			}
			out = append(out, c)
		}
	}
	return out
}

// leaves returns the changes inside field n from a to b when both are
// objects or both arrays, else nil.
func leaves(n string, a, b json.RawMessage) []PathChange {
	da, oka := decode(a)
	db, okb := decode(b)
	if !oka || !okb || !sameContainer(da, db) {
		return nil
	}
	var out []PathChange
	walk(FieldPath(n), da, db, &out)
	return out
}

// tail returns the last k elements of the array b of field n as added
// paths: what an append gained (A may be null, an empty array).
func tail(n string, b json.RawMessage, k int) []PathChange {
	var eb []json.RawMessage
	if json.Unmarshal(b, &eb) != nil {
		return nil
	}
	out := make([]PathChange, 0, k)
	for i := len(eb) - k; i < len(eb); i++ {
		v, _ := decode(eb[i])
		out = append(out, PathChange{Path: appendIndex(FieldPath(n), i), Kind: Added, After: encode(v)})
	}
	return out
}

// sameContainer reports whether a and b are both objects or both arrays.
func sameContainer(a, b any) bool {
	switch a.(type) {
	case map[string]any:
		_, ok := b.(map[string]any)
		return ok
	case []any:
		_, ok := b.([]any)
		return ok
	}
	return false
}

// walk appends to out the leaf changes from a to b at path: keys in
// sorted order, elements by index.
func walk(path string, a, b any, out *[]PathChange) {
	if equal(a, b) {
		return
	}
	if !sameContainer(a, b) {
		*out = append(*out, PathChange{Path: path, Kind: Changed, Before: encode(a), After: encode(b)})
		return
	}
	if xa, ok := a.([]any); ok {
		xb := b.([]any)
		for i := range max(len(xa), len(xb)) {
			p := appendIndex(path, i)
			switch {
			case i >= len(xa):
				*out = append(*out, PathChange{Path: p, Kind: Added, After: encode(xb[i])})
			case i >= len(xb):
				*out = append(*out, PathChange{Path: p, Kind: Removed, Before: encode(xa[i])})
			default:
				walk(p, xa[i], xb[i], out)
			}
		}
		return
	}
	ma, mb := a.(map[string]any), b.(map[string]any)
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		va, inA := ma[k]
		vb, inB := mb[k]
		p := appendKey(path, k)
		switch {
		case !inA:
			*out = append(*out, PathChange{Path: p, Kind: Added, After: encode(vb)})
		case !inB:
			*out = append(*out, PathChange{Path: p, Kind: Removed, Before: encode(va)})
		default:
			walk(p, va, vb, out)
		}
	}
}

// appended returns how many elements b appends to a when both are JSON
// arrays and a is a prefix of b, else 0.
func appended(a, b json.RawMessage) int {
	var ea, eb []json.RawMessage
	if json.Unmarshal(a, &ea) != nil || json.Unmarshal(b, &eb) != nil || len(eb) <= len(ea) {
		return 0
	}
	for i := range ea {
		if !sameJSON(ea[i], eb[i]) {
			return 0
		}
	}
	return len(eb) - len(ea)
}

// sameJSON reports whether a and b hold equal JSON values.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, oka := decode(a)
	vb, okb := decode(b)
	if !oka || !okb {
		return false
	}
	return equal(va, vb)
}

// equal compares decoded JSON values; numbers compare exactly by value,
// so 1 equals 1.0 but two large integers never round to each other.
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func decode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
