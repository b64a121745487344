package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

type obj = map[string]any

var putGetTests = []test{
	{name: "PutThenGetRoundTripsTheItem", fn: func(t *testing.T, e *env) {
		ns := []string{"users", "u1", "memories"}
		v := obj{"text": "likes tea", "n": 3, "nested": obj{"tags": []any{"a", "b"}, "ok": true}, "unicode": "naïve 🍵", "nil": nil}
		require.NoError(t, e.s.Put(e.ctx, ns, "m1", v))
		it, err := e.s.Get(e.ctx, ns, "m1")
		require.NoError(t, err)
		require.Equal(t, ns, it.Namespace)
		require.Equal(t, "m1", it.Key)
		require.Equal(t, obj{"text": "likes tea", "n": 3.0, "nested": obj{"tags": []any{"a", "b"}, "ok": true}, "unicode": "naïve 🍵", "nil": nil}, it.Value)
		require.True(t, it.CreatedAt.Equal(t0), "created at %v", it.CreatedAt)
		require.True(t, it.UpdatedAt.Equal(t0), "updated at %v", it.UpdatedAt)
		require.True(t, it.ExpiresAt.IsZero())
	}},
	{name: "PutOfAStructStoresItsJSON", fn: func(t *testing.T, e *env) {
		type profile struct {
			Name string `json:"name"`
			Age  int    `json:"age"`
		}
		require.NoError(t, e.s.Put(e.ctx, []string{"p"}, "k", profile{"Ada", 36}))
		it, err := e.s.Get(e.ctx, []string{"p"}, "k")
		require.NoError(t, err)
		require.Equal(t, obj{"name": "Ada", "age": 36.0}, it.Value)
	}},
	{name: "PutReplacesTheValueAndKeepsTheCreationTime", fn: func(t *testing.T, e *env) {
		ns := []string{"a"}
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{"v": 1}))
		e.clock.Advance(time.Hour)
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{"w": 2}))
		it, err := e.s.Get(e.ctx, ns, "k")
		require.NoError(t, err)
		require.Equal(t, obj{"w": 2.0}, it.Value, "the whole value is replaced, not merged")
		require.True(t, it.CreatedAt.Equal(t0))
		require.True(t, it.UpdatedAt.Equal(t0.Add(time.Hour)))
	}},
	{name: "KeysAreScopedByNamespace", fn: func(t *testing.T, e *env) {
		require.NoError(t, e.s.Put(e.ctx, []string{"a"}, "k", obj{"in": "a"}))
		require.NoError(t, e.s.Put(e.ctx, []string{"a", "b"}, "k", obj{"in": "a.b"}))
		it, err := e.s.Get(e.ctx, []string{"a"}, "k")
		require.NoError(t, err)
		require.Equal(t, "a", it.Value["in"])
		it, err = e.s.Get(e.ctx, []string{"a", "b"}, "k")
		require.NoError(t, err)
		require.Equal(t, "a.b", it.Value["in"])
	}},
	{name: "GetOfAMissingItemIsErrNotFoundNamingIt", fn: func(t *testing.T, e *env) {
		_, err := e.s.Get(e.ctx, []string{"nowhere"}, "nothing")
		require.ErrorIs(t, err, store.ErrNotFound)
		require.ErrorContains(t, err, "nothing")
	}},
	{name: "DeleteRemovesTheItemAndDeletingAgainIsNotAnError", fn: func(t *testing.T, e *env) {
		ns := []string{"a"}
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{"v": 1}))
		require.NoError(t, e.s.Put(e.ctx, ns, "other", obj{"v": 2}))
		require.NoError(t, e.s.Delete(e.ctx, ns, "k"))
		_, err := e.s.Get(e.ctx, ns, "k")
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, e.s.Delete(e.ctx, ns, "k"))
		_, err = e.s.Get(e.ctx, ns, "other")
		require.NoError(t, err, "only the named item goes")
	}},
	{name: "InvalidArgumentsAreRefusedNamingTheCulprit", fn: func(t *testing.T, e *env) {
		for _, c := range []struct {
			ns    []string
			key   string
			value any
			want  string
		}{
			{nil, "k", obj{}, "at least one label"},
			{[]string{"a", ""}, "k", obj{}, "label 1 is empty"},
			{[]string{"a.b"}, "k", obj{}, `label "a.b" contains a period`},
			{[]string{"a"}, "", obj{}, "empty key"},
			{[]string{"a"}, "k", []int{1}, "not a JSON object"},
			{[]string{"a"}, "k", nil, "not a JSON object"},
			{[]string{"a"}, "k", obj{"f": func() {}}, "value"},
		} {
			err := e.s.Put(e.ctx, c.ns, c.key, c.value)
			require.ErrorContains(t, err, c.want, "%+v", c)
			if len(c.ns) == 0 || c.ns[len(c.ns)-1] == "" || c.ns[0] == "a.b" {
				require.ErrorIs(t, err, store.ErrInvalidNamespace)
			}
		}
		_, err := e.s.Search(e.ctx, []string{""}, store.SearchOptions{})
		require.ErrorIs(t, err, store.ErrInvalidNamespace)
		items, err := e.s.Search(e.ctx, nil, store.SearchOptions{})
		require.NoError(t, err)
		require.Empty(t, items, "nothing was stored")
	}},
	{name: "ConcurrentPutsAreAllStored", fn: func(t *testing.T, e *env) {
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			wg.Go(func() {
				errs[i] = errors.Join(
					e.s.Put(e.ctx, []string{"c"}, fmt.Sprintf("k%02d", i), obj{"i": i}),
					e.s.Put(e.ctx, []string{"c"}, "shared", obj{"i": i}),
				)
			})
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "writer %d", i)
		}
		items, err := e.s.Search(e.ctx, []string{"c"}, store.SearchOptions{Limit: 100})
		require.NoError(t, err)
		require.Len(t, items, 17, "16 keys and the shared one, once")
	}},
}
