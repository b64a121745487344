package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stategraph/stategraph/store"
)

// Bench runs the store benchmarks against the stores newStore builds (on
// empty storage, with opts): Put, Get, a filtered Search and a semantic
// Search over 1,000 items embedded in 256 dimensions; then, over 10,000
// items in 100 namespaces, filtered Searches whose matches are the
// oldest (a store that filters after reading reads them all), the
// newest, or in one namespace, and a page of ListNamespaces. A driver
// with an Analyze(ctx) error method (store/sqlite, store/postgres) has it
// called after the load, as a database whose statistics caught up.
func Bench(b *testing.B, newStore func(tb testing.TB, opts ...store.Option) *store.Store) {
	ctx := context.Background()
	index := store.WithIndex(store.Index{Embedder: &Embedder{}, Fields: []string{"text"}})
	b.Run("Put", func(b *testing.B) {
		s := newStore(b, index)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := s.Put(ctx, []string{"bench"}, fmt.Sprintf("k%d", i%1000), obj{"text": Corpus[i%len(Corpus)].Text}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	s := newStore(b, index)
	for i := range 1000 {
		c := Corpus[i%len(Corpus)]
		if err := s.Put(ctx, []string{"bench", fmt.Sprint(i % 10)}, fmt.Sprintf("k%d", i), obj{"text": fmt.Sprintf("%s %d", c.Text, i), "kind": c.Kind, "i": i}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Get(ctx, []string{"bench", "3"}, "k503"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SearchFilter1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, err := s.Search(ctx, []string{"bench"}, store.SearchOptions{Filter: store.Filter{"kind": "chore", "i": obj{"$gte": 900}}})
			if err != nil || len(items) != 10 {
				b.Fatal(len(items), err)
			}
		}
	})
	b.Run("SearchQuery1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, err := s.Search(ctx, []string{"bench"}, store.SearchOptions{Query: "cheese pizza", Limit: 5})
			if err != nil || len(items) != 5 {
				b.Fatal(len(items), err)
			}
		}
	})
	big := newStore(b)
	for i := range 10000 {
		if err := big.Put(ctx, []string{"big", fmt.Sprint(i % 100)}, fmt.Sprintf("k%d", i), obj{"kind": Corpus[i%len(Corpus)].Kind, "i": i}); err != nil {
			b.Fatal(err)
		}
	}
	if a, ok := big.Driver().(interface{ Analyze(context.Context) error }); ok {
		// As a database whose statistics have caught up (autovacuum).
		if err := a.Analyze(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("SearchFilter10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, err := big.Search(ctx, []string{"big"}, store.SearchOptions{Filter: store.Filter{"kind": "chore", "i": obj{"$lt": 500}}})
			if err != nil || len(items) != 10 || items[0].Key != "k499" {
				b.Fatal(keys(items), err)
			}
		}
	})
	b.Run("SearchFilterNewest10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, err := big.Search(ctx, []string{"big"}, store.SearchOptions{Filter: store.Filter{"kind": "food"}})
			if err != nil || len(items) != 10 || items[0].Key != "k9996" {
				b.Fatal(keys(items), err)
			}
		}
	})
	b.Run("SearchOneNamespace10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			items, err := big.Search(ctx, []string{"big", "42"}, store.SearchOptions{Filter: store.Filter{"kind": "pet"}})
			if err != nil || len(items) != 10 || items[0].Key != "k9942" {
				b.Fatal(keys(items), err)
			}
		}
	})
	b.Run("ListNamespaces10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			nss, err := big.ListNamespaces(ctx, store.ListNamespacesOptions{Prefix: []string{"big"}, Limit: 10, Offset: 20})
			if err != nil || len(nss) != 10 {
				b.Fatal(nss, err)
			}
		}
	})
}
