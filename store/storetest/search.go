package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

// keys returns the keys of items, in order.
func keys(items []store.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Key
	}
	return out
}

// putAll puts each value under ns at key, a second apart, in order.
func putAll(t *testing.T, e *env, ns []string, kv ...any) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		require.NoError(t, e.s.Put(e.ctx, ns, kv[i].(string), kv[i+1]))
		e.clock.Advance(time.Second)
	}
}

func search(t *testing.T, e *env, prefix []string, opts store.SearchOptions) []string {
	t.Helper()
	items, err := e.s.Search(e.ctx, prefix, opts)
	require.NoError(t, err)
	return keys(items)
}

var searchTests = []test{
	{name: "APrefixMatchesWholeLabelsOnly", fn: func(t *testing.T, e *env) {
		putAll(t, e, []string{"docs", "a"}, "in-a", obj{})
		putAll(t, e, []string{"docs", "a", "deep"}, "in-a-deep", obj{})
		putAll(t, e, []string{"docs", "ab"}, "in-ab", obj{})
		putAll(t, e, []string{"docs-x"}, "in-docs-x", obj{})
		require.Equal(t, []string{"in-a-deep", "in-a"}, search(t, e, []string{"docs", "a"}, store.SearchOptions{}))
		require.Equal(t, []string{"in-ab", "in-a-deep", "in-a"}, search(t, e, []string{"docs"}, store.SearchOptions{}))
		require.Equal(t, []string{"in-docs-x", "in-ab", "in-a-deep", "in-a"}, search(t, e, nil, store.SearchOptions{}), "an empty prefix is every item")
	}},
	{name: "ResultsComeNewestUpdateFirst", fn: func(t *testing.T, e *env) {
		ns := []string{"n"}
		putAll(t, e, ns, "old", obj{}, "mid", obj{}, "new", obj{})
		putAll(t, e, ns, "old", obj{"touched": true})
		require.Equal(t, []string{"old", "new", "mid"}, search(t, e, ns, store.SearchOptions{}))
	}},
	{name: "LimitAndOffsetPage", fn: func(t *testing.T, e *env) {
		ns := []string{"p"}
		for _, k := range []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12"} {
			putAll(t, e, ns, k, obj{})
		}
		require.Len(t, search(t, e, ns, store.SearchOptions{}), 10, "the default limit is 10")
		require.Equal(t, []string{"k10", "k9"}, search(t, e, ns, store.SearchOptions{Limit: 2, Offset: 2}))
		require.Empty(t, search(t, e, ns, store.SearchOptions{Offset: 12}))
		_, err := e.s.Search(e.ctx, ns, store.SearchOptions{Limit: -1})
		require.ErrorContains(t, err, "negative limit")
	}},
	{name: "AFilterMatchesFieldsByValueAndOperator", fn: func(t *testing.T, e *env) {
		ns := []string{"f"}
		putAll(t, e, ns,
			"a", obj{"kind": "note", "score": 1, "profile": obj{"city": "Oslo"}, "tags": []any{"x"}},
			"b", obj{"kind": "note", "score": 5, "profile": obj{"city": "Rome"}},
			"c", obj{"kind": "task", "score": 9},
		)
		for _, c := range []struct {
			name   string
			filter store.Filter
			want   []string
		}{
			{"equality", store.Filter{"kind": "note"}, []string{"b", "a"}},
			{"two keys", store.Filter{"kind": "note", "score": 5}, []string{"b"}},
			{"an int matches a stored float", store.Filter{"score": 9.0}, []string{"c"}},
			{"$gt", store.Filter{"score": obj{"$gt": 1}}, []string{"c", "b"}},
			{"$gte and $lt", store.Filter{"score": obj{"$gte": 1, "$lt": 9}}, []string{"b", "a"}},
			{"$lte", store.Filter{"score": obj{"$lte": 1}}, []string{"a"}},
			{"$ne keeps items without the field", store.Filter{"profile.city": obj{"$ne": "Oslo"}}, []string{"c", "b"}},
			{"$eq", store.Filter{"kind": obj{"$eq": "task"}}, []string{"c"}},
			{"dotted path", store.Filter{"profile.city": "Rome"}, []string{"b"}},
			{"nested object", store.Filter{"profile": obj{"city": "Oslo"}}, []string{"a"}},
			{"array", store.Filter{"tags": []string{"x"}}, []string{"a"}},
			{"missing field", store.Filter{"absent": "x"}, []string{}},
			{"an ordering of a string with a number", store.Filter{"kind": obj{"$gt": 1}}, []string{}},
		} {
			got := search(t, e, ns, store.SearchOptions{Filter: c.filter})
			if len(c.want) == 0 {
				require.Empty(t, got, c.name)
				continue
			}
			require.Equal(t, c.want, got, c.name)
		}
		require.Equal(t, []string{"b"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"kind": "note"}, Limit: 1}), "the limit counts matches")
		require.Equal(t, []string{"a"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"kind": "note"}, Offset: 1}), "the offset counts matches")
		_, err := e.s.Search(e.ctx, ns, store.SearchOptions{Filter: store.Filter{"score": obj{"$near": 1}}})
		require.ErrorContains(t, err, `unknown operator "$near"`)
	}},
	{name: "AFilterKeepsJSONTypesApart", fn: func(t *testing.T, e *env) {
		ns := []string{"types"}
		putAll(t, e, ns,
			"true", obj{"v": true},
			"one", obj{"v": 1},
			"one-point-five", obj{"v": 1.5},
			"null", obj{"v": nil},
			"absent", obj{},
			"str-one", obj{"v": "1"},
			"upper", obj{"v": "B"},
			"lower", obj{"v": "a"},
			"accent", obj{"v": "é"},
			"obj", obj{"v": obj{"x": 1.0, "y": []any{1, "two"}}},
			"arr", obj{"v": []any{1, 2}},
			"arr-obj", obj{"v": []any{obj{"x": 1}}},
		)
		for _, c := range []struct {
			name   string
			filter store.Filter
			want   []string
		}{
			{"true is not 1", store.Filter{"v": true}, []string{"true"}},
			{"1 is not true nor \"1\"", store.Filter{"v": 1}, []string{"one"}},
			{"1.0 is 1", store.Filter{"v": 1.0}, []string{"one"}},
			{"null matches a present null only", store.Filter{"v": nil}, []string{"null"}},
			{"$ne null keeps the absent", store.Filter{"v": obj{"$ne": nil}}, []string{"arr-obj", "arr", "obj", "accent", "lower", "upper", "str-one", "absent", "one-point-five", "one", "true"}},
			{"numbers order with numbers", store.Filter{"v": obj{"$gte": 1}}, []string{"one-point-five", "one"}},
			{"$gt true matches nothing", store.Filter{"v": obj{"$gt": false}}, []string{}},
			{"strings order byte by byte", store.Filter{"v": obj{"$gt": "B"}}, []string{"accent", "lower"}},
			{"$lt a string", store.Filter{"v": obj{"$lt": "a"}}, []string{"upper", "str-one"}},
			{"an object compares whole, in any key order", store.Filter{"v": obj{"y": []any{1.0, "two"}, "x": 1}}, []string{"obj"}},
			{"a part of an object is not the object", store.Filter{"v": obj{"x": 1}}, []string{}},
			{"an array compares whole", store.Filter{"v": []any{1, 2}}, []string{"arr"}},
			{"an element is not the array", store.Filter{"v": 1.0, "absent": obj{"$ne": 1}}, []string{"one"}},
			{"$ne an object", store.Filter{"v": obj{"$ne": []any{1, 2}}, "v.x": obj{"$ne": 7}}, []string{"arr-obj", "obj", "accent", "lower", "upper", "str-one", "absent", "null", "one-point-five", "one", "true"}},
			{"a path does not index arrays", store.Filter{"v.0": 1}, []string{}},
			{"a path does not enter an array's objects", store.Filter{"v.x": 1}, []string{"obj"}},
		} {
			got := search(t, e, ns, store.SearchOptions{Filter: c.filter, Limit: 20})
			if len(c.want) == 0 {
				require.Empty(t, got, c.name)
				continue
			}
			require.Equal(t, c.want, got, c.name)
		}
	}},
	{name: "ADottedKeyPrefersAFieldOfThatName", fn: func(t *testing.T, e *env) {
		ns := []string{"dots"}
		putAll(t, e, ns,
			"literal", obj{"a.b": "x", "a": obj{"b": "y"}},
			"nested", obj{"a": obj{"b": "x"}},
			"odd keys", obj{`say "hi"`: 1, "": obj{"": 2}, "ünï": obj{"k y": 3}, `back\slash<&>`: true},
		)
		require.Equal(t, []string{"nested", "literal"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"a.b": "x"}}))
		require.Empty(t, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"a.b": "y"}}), "the field named a.b hides the path")
		require.Equal(t, []string{"odd keys"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{`say "hi"`: 1}}))
		require.Equal(t, []string{"odd keys"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{".": 2}}), "an empty key, nested in an empty key")
		require.Equal(t, []string{"odd keys"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"ünï.k y": obj{"$gt": 2}}}))
		require.Equal(t, []string{"odd keys"}, search(t, e, ns, store.SearchOptions{Filter: store.Filter{`back\slash<&>`: true}}))
	}},
	{name: "AFilterPagesItsMatchesAmongMany", fn: func(t *testing.T, e *env) {
		ns := []string{"many"}
		for i := range 60 {
			putAll(t, e, []string{"many", fmt.Sprint(i % 4)}, fmt.Sprintf("k%02d", i), obj{"i": i, "third": i%3 == 0})
		}
		putAll(t, e, []string{"many-other"}, "outside", obj{"i": 3, "third": true})
		got := search(t, e, ns, store.SearchOptions{Filter: store.Filter{"third": true, "i": obj{"$lt": 40}}, Limit: 4, Offset: 3})
		require.Equal(t, []string{"k30", "k27", "k24", "k21"}, got)
		got = search(t, e, []string{"many", "1"}, store.SearchOptions{Filter: store.Filter{"third": true}, Limit: 3})
		require.Equal(t, []string{"k57", "k45", "k33"}, got, "a deeper prefix")
		require.Empty(t, search(t, e, ns, store.SearchOptions{Filter: store.Filter{"third": true}, Offset: 20}))
	}},
}
