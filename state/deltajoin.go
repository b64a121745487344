package state

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// An append field's stored value is a snapshot and the deltas after it,
// each a list of elements. Decoding them one by one costs a codec call, a
// slice and a copy each; with a JSON codec they are read in one pass
// instead, which is what makes reading a long chat thread (a snapshot and
// a hundred one-message deltas) as fast as reading its history stored
// whole. Elements with their own UnmarshalJSON (chat.Message) are handed
// their bytes directly: encoding/json would scan each element twice more
// (validating the list, then skipping to the element's end) before
// calling it.

// jsonListProbe is what a codec that reads JSON decodes as an empty list.
var jsonListProbe = []byte("[]")

// joinLists returns the JSON list holding the elements of snapshot, then
// of each delta, in order, and false when a part is not a JSON list (or
// null): the codec then reads each part on its own.
func joinLists(snapshot []byte, deltas [][]byte) ([]byte, bool) {
	n := len(snapshot) + 2
	for _, d := range deltas {
		n += len(d) + 1
	}
	out := make([]byte, 1, n)
	out[0] = '['
	empty := true
	add := func(part []byte) bool {
		part = bytes.TrimSpace(part)
		if len(part) == 0 || bytes.Equal(part, []byte("null")) {
			return true
		}
		if len(part) < 2 || part[0] != '[' || part[len(part)-1] != ']' {
			return false
		}
		inner := bytes.TrimSpace(part[1 : len(part)-1])
		if len(inner) == 0 {
			return true
		}
		if !empty {
			out = append(out, ',')
		}
		out = append(out, inner...)
		empty = false
		return true
	}
	if !add(snapshot) {
		return nil, false
	}
	for _, d := range deltas {
		if !add(d) {
			return nil, false
		}
	}
	return append(out, ']'), true
}

// decodeJoined decodes an append field's snapshot and deltas as one list
// when the codec reads JSON and every part is a JSON list; it reports
// false, having set nothing, when they must be read one by one.
func (o keyOps[S, T]) decodeJoined(s *S, snapshot []byte, deltas [][]byte, c Codec) bool {
	if o.k.kind != KindAppend {
		return false
	}
	var probe T
	if c.Unmarshal(jsonListProbe, &probe) != nil {
		return false // not a JSON codec (an encrypting or compressing one)
	}
	joined, ok := joinLists(snapshot, deltas)
	if !ok {
		return false
	}
	if v, ok := decodeElements[T](joined); ok {
		*o.k.get(s) = v
		return true
	}
	var v T
	if c.Unmarshal(joined, &v) != nil {
		return false // the parts, read one by one, name the one at fault
	}
	*o.k.get(s) = v
	return true
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// decodeElements decodes list, a JSON list, into a T, a slice whose
// elements decode themselves (*E implements json.Unmarshaler): each
// element's bytes go to its UnmarshalJSON, as encoding/json would pass
// them. It reports false, having decoded nothing, for any other T, and
// for a list whose elements it cannot delimit or that an element refuses
// (encoding/json, reading it again, names the fault).
func decodeElements[T any](list []byte) (T, bool) {
	var zero T
	rv, ok := decodeElementsOf(reflect.TypeFor[T](), list)
	if !ok {
		return zero, false
	}
	return rv.Interface().(T), true
}

// decodeElementsOf is decodeElements for a type known at run time.
func decodeElementsOf(t reflect.Type, list []byte) (reflect.Value, bool) {
	if t.Kind() != reflect.Slice || !reflect.PointerTo(t.Elem()).Implements(unmarshalerType) {
		return reflect.Value{}, false
	}
	spans, ok := elementSpans(list)
	if !ok {
		return reflect.Value{}, false
	}
	rv := reflect.MakeSlice(t, len(spans), len(spans))
	for i, sp := range spans {
		u := rv.Index(i).Addr().Interface().(json.Unmarshaler)
		if u.UnmarshalJSON(list[sp[0]:sp[1]]) != nil {
			return reflect.Value{}, false
		}
	}
	return rv, true
}

// elementSpans returns the start and end of each element of list, a JSON
// list, and false when list is not one (unbalanced brackets or quotes,
// an empty element). It delimits, it does not validate: each element's
// decoder does.
func elementSpans(list []byte) ([][2]int, bool) {
	list = bytes.TrimRight(list, " \t\r\n")
	if len(list) < 2 || list[0] != '[' || list[len(list)-1] != ']' {
		return nil, false
	}
	var spans [][2]int
	depth, start := 0, -1
	end := len(list) - 1
	for i := 1; i < end; i++ {
		switch c := list[i]; c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			if start < 0 {
				start = i
			}
			for i++; i < end && list[i] != '"'; i++ {
				if list[i] == '\\' {
					i++
				}
			}
			if i >= end {
				return nil, false
			}
		case '{', '[':
			if start < 0 {
				start = i
			}
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return nil, false
			}
		case ',':
			if depth > 0 {
				continue
			}
			if start < 0 {
				return nil, false
			}
			spans = append(spans, [2]int{start, lastNonSpace(list, i)})
			start = -1
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if depth != 0 {
		return nil, false
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, lastNonSpace(list, end)})
	} else if len(spans) > 0 {
		return nil, false // a trailing comma
	}
	return spans, true
}

// lastNonSpace returns the end of list[:i] without its trailing space.
func lastNonSpace(list []byte, i int) int {
	for i > 0 && (list[i-1] == ' ' || list[i-1] == '\t' || list[i-1] == '\r' || list[i-1] == '\n') {
		i--
	}
	return i
}
