package storetest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/store/storetest"
)

// Embedder makes semantic search testable: texts that share words are
// neighbours.
func ExampleEmbedder() {
	ctx := context.Background()
	s, err := memory.New(store.WithIndex(store.Index{Embedder: &storetest.Embedder{}, Fields: []string{"text"}}))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range storetest.Corpus {
		if err := s.Put(ctx, []string{"docs"}, c.Key, map[string]any{"text": c.Text}); err != nil {
			log.Fatal(err)
		}
	}
	items, err := s.Search(ctx, []string{"docs"}, store.SearchOptions{Query: "a dog in the park", Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range items {
		fmt.Printf("%s %.2f\n", it.Key, it.Score)
	}
	// Output:
	// dog 0.63
	// cat 0.28
}
