package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

var namespaceTests = []test{
	{name: "PrefixSuffixWildcardAndDepthNarrowTheList", fn: func(t *testing.T, e *env) {
		for _, ns := range [][]string{
			{"a", "b", "c"}, {"a", "b", "d", "e"}, {"a", "b", "d", "i"}, {"a", "b", "f"}, {"a", "c", "f"}, {"x", "y"},
		} {
			require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{}))
		}
		require.NoError(t, e.s.Put(e.ctx, []string{"a", "b", "c"}, "k2", obj{}))
		list := func(opts store.ListNamespacesOptions) [][]string {
			t.Helper()
			out, err := e.s.ListNamespaces(e.ctx, opts)
			require.NoError(t, err)
			return out
		}
		require.Equal(t, [][]string{{"a", "b", "c"}, {"a", "b", "d", "e"}, {"a", "b", "d", "i"}, {"a", "b", "f"}, {"a", "c", "f"}, {"x", "y"}},
			list(store.ListNamespacesOptions{}), "each namespace once, sorted")
		require.Equal(t, [][]string{{"a", "b", "c"}, {"a", "b", "d"}, {"a", "b", "f"}},
			list(store.ListNamespacesOptions{Prefix: []string{"a", "b"}, MaxDepth: 3}), "LangGraph's own example")
		require.Equal(t, [][]string{{"a", "b", "f"}, {"a", "c", "f"}}, list(store.ListNamespacesOptions{Suffix: []string{"f"}}))
		require.Equal(t, [][]string{{"a", "b", "f"}, {"a", "c", "f"}}, list(store.ListNamespacesOptions{Prefix: []string{"a", store.Wildcard, "f"}}))
		require.Equal(t, [][]string{{"a", "b", "d", "e"}, {"a", "b", "d", "i"}}, list(store.ListNamespacesOptions{Suffix: []string{"d", store.Wildcard}}))
		require.Equal(t, [][]string{{"a"}, {"x"}}, list(store.ListNamespacesOptions{MaxDepth: 1}))
		require.Equal(t, [][]string{{"a", "b", "d", "e"}, {"a", "b", "d", "i"}}, list(store.ListNamespacesOptions{Limit: 2, Offset: 1}))
		require.Empty(t, list(store.ListNamespacesOptions{Prefix: []string{"a", "b", "c", "d"}}))
	}},
	{name: "ADeletedItemsNamespaceIsGoneWithIt", fn: func(t *testing.T, e *env) {
		require.NoError(t, e.s.Put(e.ctx, []string{"gone"}, "k", obj{}))
		require.NoError(t, e.s.Put(e.ctx, []string{"kept"}, "k", obj{}))
		require.NoError(t, e.s.Delete(e.ctx, []string{"gone"}, "k"))
		out, err := e.s.ListNamespaces(e.ctx, store.ListNamespacesOptions{})
		require.NoError(t, err)
		require.Equal(t, [][]string{{"kept"}}, out)
	}},
	{name: "LabelsSortBeforeLongerLabelsWhateverTheirBytes", fn: func(t *testing.T, e *env) {
		for _, ns := range [][]string{{"a-b"}, {"a", "b"}, {"a"}, {"a", "b-c"}, {"a", "b", "c"}, {"a!"}, {"b"}} {
			require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{}))
		}
		out, err := e.s.ListNamespaces(e.ctx, store.ListNamespacesOptions{})
		require.NoError(t, err)
		require.Equal(t, [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "b-c"}, {"a!"}, {"a-b"}, {"b"}}, out)
		out, err = e.s.ListNamespaces(e.ctx, store.ListNamespacesOptions{Prefix: []string{"a"}, MaxDepth: 2, Offset: 1})
		require.NoError(t, err)
		require.Equal(t, [][]string{{"a", "b"}, {"a", "b-c"}}, out, "truncations once, the prefix by whole labels")
		out, err = e.s.ListNamespaces(e.ctx, store.ListNamespacesOptions{Prefix: []string{store.Wildcard, "b"}, Suffix: []string{"b"}})
		require.NoError(t, err)
		require.Equal(t, [][]string{{"a", "b"}}, out)
	}},
}
