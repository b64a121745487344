package store_test

import (
	"context"
	"fmt"
	"log"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/store/storetest"
)

// remember is a node's body: it finds the run's store in its context.
func remember(ctx context.Context, user, fact string) error {
	s := store.From(ctx)
	if s == nil {
		return fmt.Errorf("no store in the run's context")
	}
	return s.Put(ctx, []string{"users", user, "memories"}, fact, map[string]any{"text": fact})
}

func Example() {
	ctx := context.Background()
	// storetest.Embedder is a deterministic embedder for examples and
	// tests; any langchaingo embeddings.Embedder fits here.
	s, err := memory.New(store.WithIndex(store.Index{Embedder: &storetest.Embedder{}, Fields: []string{"text"}}))
	if err != nil {
		log.Fatal(err)
	}
	ctx = store.With(ctx, s) // what a compiled graph does for its nodes
	for _, fact := range []string{"likes green tea", "has a dog named Rex", "works night shifts"} {
		if err := remember(ctx, "u42", fact); err != nil {
			log.Fatal(err)
		}
	}

	items, err := s.Search(ctx, []string{"users", "u42"}, store.SearchOptions{Query: "what tea does the user drink", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(items[0].Key)

	nss, err := s.ListNamespaces(ctx, store.ListNamespacesOptions{Prefix: []string{"users"}, MaxDepth: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(nss)
	// Output:
	// likes green tea
	// [[users u42]]
}

func ExampleStore_Search_filter() {
	ctx := context.Background()
	s, err := memory.New()
	if err != nil {
		log.Fatal(err)
	}
	ns := []string{"orders"}
	for key, v := range map[string]map[string]any{
		"o1": {"status": "open", "total": 12},
		"o2": {"status": "open", "total": 80},
		"o3": {"status": "shipped", "total": 95},
	} {
		if err := s.Put(ctx, ns, key, v); err != nil {
			log.Fatal(err)
		}
	}
	items, err := s.Search(ctx, ns, store.SearchOptions{Filter: store.Filter{"status": "open", "total": map[string]any{"$gte": 50}}})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range items {
		fmt.Println(it.Key, it.Value["total"])
	}
	// Output:
	// o2 80
}

// A driver that filters in its database reads a Filter as conditions,
// sorted by key and operator.
func ExampleFilter_Conditions() {
	conds, err := store.Filter{"kind": "note", "score": map[string]any{"$gte": 2, "$lt": 5}, "profile.city": "Oslo"}.Conditions()
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range conds {
		fmt.Println(c.Key, c.Path, c.Op, c.Value)
	}
	// Output:
	// kind [kind] $eq note
	// profile.city [profile city] $eq Oslo
	// score [score] $gte 2
	// score [score] $lt 5
}
