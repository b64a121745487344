package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrUnknownField: a field path names no value of the checkpoint.
var ErrUnknownField = errors.New("unknown field")

// A field path names a value inside a checkpoint's state: the field's
// name, then one step per level, an object's key or an array's index,
// each after a dot: plan.steps.0.name. A key that is empty or holds a
// dot, a bracket, a quote or a space is written as a JSON string in
// brackets, ["a key"]; an index may be written [0] too. Diff prints the
// paths of what changed in this form, and Select reads it.

// Segment is one step of a field path: an object key, or an array index
// when IsIndex.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// ParsePath splits a field path into its steps. The first is the field's
// name (a key).
func ParsePath(path string) ([]Segment, error) {
	if path == "" {
		return nil, errors.New("empty field path")
	}
	var segs []Segment
	s := path
	first := true
	for s != "" {
		switch {
		case s[0] == '[':
			end, seg, err := bracket(s)
			if err != nil {
				return nil, fmt.Errorf("field path %q: %w", path, err)
			}
			segs = append(segs, seg)
			s = s[end:]
		case first || s[0] == '.':
			if !first {
				s = s[1:]
			}
			n := strings.IndexAny(s, ".[")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				return nil, fmt.Errorf("field path %q: an empty step (write an empty key as [\"\"])", path)
			}
			segs = append(segs, plainSegment(s[:n]))
			s = s[n:]
		default:
			return nil, fmt.Errorf("field path %q: want . or [ before %q", path, s)
		}
		first = false
	}
	if segs[0].IsIndex {
		return nil, fmt.Errorf("field path %q: it starts with a field's name, not an index", path)
	}
	return segs, nil
}

// plainSegment is a step written after a dot: an index when it is a
// number (it selects an array's element, or an object's key of those
// digits).
func plainSegment(s string) Segment {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && strconv.Itoa(n) == s {
		return Segment{Key: s, Index: n, IsIndex: true}
	}
	return Segment{Key: s}
}

// bracket reads a bracketed step at the start of s: [N] or ["key"]. It
// returns where the step ends.
func bracket(s string) (int, Segment, error) {
	if len(s) > 1 && s[1] == '"' {
		d := json.NewDecoder(strings.NewReader(s[1:]))
		var key string
		if err := d.Decode(&key); err != nil {
			return 0, Segment{}, fmt.Errorf("bad quoted key in %q: %v", s, err)
		}
		end := 1 + int(d.InputOffset())
		if end >= len(s) || s[end] != ']' {
			return 0, Segment{}, fmt.Errorf("want ] after the key %q", key)
		}
		return end + 1, Segment{Key: key}, nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, Segment{}, fmt.Errorf("no ] closes %q", s)
	}
	seg := plainSegment(s[1:end])
	if !seg.IsIndex {
		return 0, Segment{}, fmt.Errorf("[%s] is neither an index nor a quoted key", s[1:end])
	}
	return end + 1, seg, nil
}

// plainKey reports whether a key needs no brackets in a path.
func plainKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, ".[]\" \t\n\r")
}

// appendKey returns the path of key inside the object at path.
func appendKey(path, key string) string {
	if plainKey(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	q, _ := json.Marshal(key)
	return path + "[" + string(q) + "]"
}

// appendIndex returns the path of element i of the array at path.
func appendIndex(path string, i int) string { return path + "." + strconv.Itoa(i) }

// FieldPath returns the path of a field: its name, bracketed if it
// needs to be.
func FieldPath(name string) string { return appendKey("", name) }

// Select returns the value at path among a checkpoint's field values
// (as Values returns them), as compact JSON. A path that names nothing
// is ErrUnknownField, saying what is there instead.
func Select(values map[string]json.RawMessage, path string) (json.RawMessage, error) {
	segs, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	raw, ok := values[segs[0].Key]
	if !ok {
		return nil, fmt.Errorf("%w %q: the state has no field %q (its fields are %s)",
			ErrUnknownField, path, segs[0].Key, keyList(Fields(values)))
	}
	at := FieldPath(segs[0].Key)
	v, ok := decode(raw)
	if !ok {
		return nil, fmt.Errorf("field %q: its value is not JSON", segs[0].Key)
	}
	for _, seg := range segs[1:] {
		switch x := v.(type) {
		case map[string]any:
			w, ok := x[seg.Key]
			if !ok {
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				return nil, fmt.Errorf("%w %q: %s has no key %q (its keys are %s)", ErrUnknownField, path, at, seg.Key, keyList(keys))
			}
			v, at = w, appendKey(at, seg.Key)
		case []any:
			if !seg.IsIndex {
				return nil, fmt.Errorf("%w %q: %s is an array: give an index, not %q", ErrUnknownField, path, at, seg.Key)
			}
			if seg.Index >= len(x) {
				return nil, fmt.Errorf("%w %q: %s has %s", ErrUnknownField, path, at, elements(len(x)))
			}
			v, at = x[seg.Index], appendIndex(at, seg.Index)
		default:
			return nil, fmt.Errorf("%w %q: %s is %s, not an object or an array", ErrUnknownField, path, at, kindOf(v))
		}
	}
	return encode(v), nil
}

// elements says how many elements an array has, and their indexes.
func elements(n int) string {
	switch n {
	case 0:
		return "no elements"
	case 1:
		return "1 element (index 0)"
	}
	return fmt.Sprintf("%d elements (indexes 0 to %d)", n, n-1)
}

// kindOf names the JSON type of a decoded value, with an article.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	}
	return "a value"
}

// keyList lists keys for a message, at most maxListed of them.
func keyList(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	q := make([]string, 0, maxListed+1)
	for i, k := range keys {
		if i == maxListed {
			q = append(q, fmt.Sprintf("and %d more", len(keys)-maxListed))
			break
		}
		q = append(q, strconv.Quote(k))
	}
	return strings.Join(q, ", ")
}

// encode writes a decoded value back as compact JSON: numbers as they
// were written, object keys sorted.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // decoded JSON always encodes
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
