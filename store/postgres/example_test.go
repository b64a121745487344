package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/postgres"
)

// Open the store in PostgreSQL (migrating its tables), put an item and
// find it. It needs a database, so it has no Output: go test compiles it
// but does not run it.
func Example() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, os.Getenv("STATEGRAPH_POSTGRES_DSN"), postgres.Config{Schema: "memory"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ns := []string{"users", "u42", "memories"}
	if err := s.Put(ctx, ns, "m1", map[string]any{"text": "allergic to peanuts", "kind": "health"}); err != nil {
		log.Fatal(err)
	}
	items, err := s.Search(ctx, []string{"users", "u42"}, store.SearchOptions{Filter: store.Filter{"kind": "health"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(items))
}
