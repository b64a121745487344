package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Filter keeps the items whose value has, for each key, a matching field.
// A condition is a value the field must equal (after a JSON round trip,
// so 3 matches 3.0; a map matches a nested object field by field), or a
// map of operators: $eq, $ne, $gt, $gte, $lt, $lte. The ordering operators
// compare numbers with numbers and strings with strings; a field of
// another type, or a missing field, does not match them. A key may be a
// dotted path into nested objects ("profile.city").
type Filter map[string]any

// operators are the comparisons a Filter may use.
var operators = map[string]bool{"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true}

// normalize returns f with its values as encoding/json decodes them, or an
// error naming the key of a value JSON cannot hold or an unknown operator.
func (f Filter) normalize() (Filter, error) {
	if len(f) == 0 {
		return nil, nil
	}
	out := make(Filter, len(f))
	for k, v := range f {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("store: filter key %q: %w", k, err)
		}
		var n any
		if err := json.Unmarshal(b, &n); err != nil {
			return nil, fmt.Errorf("store: filter key %q: %w", k, err)
		}
		if m, ok := n.(map[string]any); ok && isOperatorMap(m) {
			for op := range m {
				if !operators[op] {
					return nil, fmt.Errorf("store: filter key %q: unknown operator %q (known: $eq, $ne, $gt, $gte, $lt, $lte)", k, op)
				}
			}
		}
		out[k] = n
	}
	return out, nil
}

// isOperatorMap reports whether m is a map of operators: its keys start
// with "$".
func isOperatorMap(m map[string]any) bool {
	for k := range m {
		if strings.HasPrefix(k, "$") {
			return true
		}
	}
	return false
}

// match reports whether value meets every condition of f (normalized).
func (f Filter) match(value map[string]any) bool {
	for k, cond := range f {
		field, ok := lookup(value, k)
		if !matchCondition(field, ok, cond) {
			return false
		}
	}
	return true
}

// lookup returns the field of value at the dotted path.
func lookup(value map[string]any, path string) (any, bool) {
	if v, ok := value[path]; ok {
		return v, true
	}
	parts := strings.Split(path, ".")
	var cur any = value
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func matchCondition(field any, present bool, cond any) bool {
	m, ok := cond.(map[string]any)
	if !ok || !isOperatorMap(m) {
		return present && reflect.DeepEqual(field, cond)
	}
	for op, arg := range m {
		var ok bool
		switch op {
		case "$eq":
			ok = present && reflect.DeepEqual(field, arg)
		case "$ne":
			ok = !present || !reflect.DeepEqual(field, arg)
		default:
			c, comparable := compare(field, arg)
			ok = present && comparable && map[string]bool{"$gt": c > 0, "$gte": c >= 0, "$lt": c < 0, "$lte": c <= 0}[op]
		}
		if !ok {
			return false
		}
	}
	return true
}

// compare orders two numbers or two strings.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), true
		}
	}
	return 0, false
}
