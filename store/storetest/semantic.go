package storetest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

// Corpus is the small fixed set the semantic cases search: key → text.
var Corpus = []struct{ Key, Text, Kind string }{
	{"pizza", "I love pizza with extra cheese", "food"},
	{"pasta", "pasta with cheese and tomato sauce", "food"},
	{"dog", "my dog runs in the park every morning", "pet"},
	{"cat", "the cat sleeps on the sofa all day", "pet"},
	{"tax", "file the tax return before April", "chore"},
}

// putCorpus stores Corpus under ns, each value {"text": …, "kind": …}.
func putCorpus(t *testing.T, e *env, ns []string) {
	t.Helper()
	for _, c := range Corpus {
		putAll(t, e, ns, c.Key, obj{"text": c.Text, "kind": c.Kind})
	}
}

var semanticTests = []test{
	{name: "AQueryReturnsTheExpectedNeighboursBestFirst", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"mem"}
		putCorpus(t, e, ns)
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"cheese pizza", []string{"pizza", "pasta"}},
			{"tomato sauce with pasta", []string{"pasta", "pizza"}},
			{"where does the dog run in the morning", []string{"dog", "cat"}},
			{"April tax", []string{"tax"}},
		} {
			items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: c.query, Limit: len(c.want)})
			require.NoError(t, err)
			require.Equal(t, c.want, keys(items), c.query)
			for i := 1; i < len(items); i++ {
				require.GreaterOrEqual(t, items[i-1].Score, items[i].Score, "best first")
			}
			require.Greater(t, items[0].Score, 0.3, "%q: the best neighbour shares words", c.query)
		}
		items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza", Limit: 10})
		require.NoError(t, err)
		require.Len(t, items, len(Corpus), "every embedded item is ranked")
		require.InDelta(t, 0, items[len(items)-1].Score, 1e-9, "a text without a shared word scores 0")
	}},
	{name: "AQueryWithAFilterRanksOnlyTheMatches", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"mem"}
		putCorpus(t, e, ns)
		items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza in the park", Filter: store.Filter{"kind": "pet"}})
		require.NoError(t, err)
		require.Equal(t, []string{"dog", "cat"}, keys(items))
		items, err = e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza", Limit: 1, Offset: 1})
		require.NoError(t, err)
		require.Equal(t, []string{"pasta"}, keys(items), "the offset skips the best")
	}},
	{name: "AQueryWithAFilterOnAnObjectRanksOnlyTheMatches", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"mem"}
		putAll(t, e, ns,
			"pizza", obj{"text": "I love pizza with extra cheese", "meta": obj{"n": 1, "tags": []any{"a"}}},
			"pasta", obj{"text": "pasta with cheese and tomato sauce", "meta": obj{"n": 2}},
			"pizza-too", obj{"text": "pizza with cheese", "meta": obj{"n": 1.0, "tags": []any{"a"}}},
			"pizza-deep", obj{"text": "cheese pizza", "deep": obj{"meta": obj{"tags": []any{"a"}, "n": 1}}},
		)
		items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza", Filter: store.Filter{"meta": obj{"tags": []any{"a"}, "n": 1}}})
		require.NoError(t, err)
		require.Equal(t, []string{"pizza-too", "pizza"}, keys(items))
		items, err = e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza", Filter: store.Filter{"meta": obj{"$ne": obj{"n": 2}}}, Limit: 2, Offset: 1})
		require.NoError(t, err)
		require.Equal(t, []string{"pizza-too", "pizza"}, keys(items), "ranked among the three that match, the best skipped")
	}},
	{name: "AnItemPutWithoutIndexTakesNoPartInAQuery", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"mem"}
		require.NoError(t, e.s.Put(e.ctx, ns, "plain", obj{"text": "cheese pizza"}, store.NoIndex()))
		require.NoError(t, e.s.Put(e.ctx, ns, "indexed", obj{"text": "pizza"}))
		items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza"})
		require.NoError(t, err)
		require.Equal(t, []string{"indexed"}, keys(items))
		require.NoError(t, e.s.Put(e.ctx, ns, "indexed", obj{"text": "pizza"}, store.NoIndex()))
		items, err = e.s.Search(e.ctx, ns, store.SearchOptions{Query: "pizza"})
		require.NoError(t, err)
		require.Empty(t, items, "a Put without index drops the old vectors")
		items, err = e.s.Search(e.ctx, ns, store.SearchOptions{})
		require.NoError(t, err)
		require.Len(t, items, 2, "both are found without a query")
	}},
	{name: "IndexFieldsEmbedsEachElementOfAPath", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"mem"}
		require.NoError(t, e.s.Put(e.ctx, ns, "multi", obj{"notes": []any{"tax return", "dog walk"}}, store.IndexFields("notes[*]")))
		require.NoError(t, e.s.Put(e.ctx, ns, "first", obj{"notes": []any{"cat nap", "dog walk"}}, store.IndexFields("notes[0]")))
		items, err := e.s.Search(e.ctx, ns, store.SearchOptions{Query: "dog walk"})
		require.NoError(t, err)
		require.Equal(t, []string{"multi", "first"}, keys(items), "multi matches through its second note; first embedded only its first")
		require.InDelta(t, 1, items[0].Score, 1e-6)
	}},
	{name: "AQueryOnAStoreWithoutIndexIsErrNoIndex", fn: func(t *testing.T, e *env) {
		_, err := e.s.Search(e.ctx, []string{"mem"}, store.SearchOptions{Query: "x"})
		require.ErrorIs(t, err, store.ErrNoIndex)
	}},
	{name: "AVectorOfTheWrongLengthIsRefused", fn: func(t *testing.T, e *env) {
		s := e.h.New(t, store.WithClock(e.clock.Now), store.WithIndex(store.Index{Embedder: &Embedder{Dims: 8}, Dims: 16}))
		err := s.Put(e.ctx, []string{"mem"}, "k", obj{"text": "x"})
		require.ErrorContains(t, err, "8 dimensions, the index wants 16")
		require.ErrorContains(t, err, `"k"`)
		_, err = s.Get(e.ctx, []string{"mem"}, "k")
		require.True(t, errors.Is(err, store.ErrNotFound), "nothing was stored")
	}},
	{name: "NoIndexDoesNotCallTheEmbedder", fn: func(t *testing.T, e *env) {
		emb := &Embedder{}
		s := e.h.New(t, store.WithClock(e.clock.Now), store.WithIndex(store.Index{Embedder: emb, Fields: []string{"text", "title"}}))
		require.NoError(t, s.Put(e.ctx, []string{"mem"}, "a", obj{"text": "x"}, store.NoIndex()))
		require.Zero(t, emb.Texts())
		require.NoError(t, s.Put(e.ctx, []string{"mem"}, "b", obj{"text": "x", "title": "y"}))
		require.Equal(t, 2, emb.Texts(), "one text per field present")
	}},
}
