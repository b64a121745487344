package storetest

import (
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
}
