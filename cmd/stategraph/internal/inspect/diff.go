package inspect

import (
	"bytes"
	"encoding/json"
	"math/big"
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
			c := Change{Field: n, Kind: Changed, Before: va, After: vb}
			if k := appended(va, vb); k > 0 {
				c.Kind, c.Appended = Appended, k
			}
			out = append(out, c)
		}
	}
	return out
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
