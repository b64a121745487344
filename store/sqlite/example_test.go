package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/sqlite"
	"github.com/stategraph/stategraph/store/storetest"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "store-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.db")
	embedder := &storetest.Embedder{} // any langchaingo embeddings.Embedder
	s, err := sqlite.Open(ctx, path, store.WithIndex(store.Index{Embedder: embedder, Fields: []string{"text"}}))
	if err != nil {
		log.Fatal(err)
	}
	ns := []string{"users", "u42", "memories"}
	if err := s.Put(ctx, ns, "m1", map[string]any{"text": "prefers window seats on trains"}); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	// Another process, later: the items and their vectors are in the file.
	again, err := sqlite.Open(ctx, path, store.WithIndex(store.Index{Embedder: embedder, Fields: []string{"text"}}))
	if err != nil {
		log.Fatal(err)
	}
	defer again.Close()
	items, err := again.Search(ctx, []string{"users", "u42"}, store.SearchOptions{Query: "train seats"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(items[0].Key, items[0].Value["text"])
	// Output: m1 prefers window seats on trains
}
