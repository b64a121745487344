package memory_test

import (
	"context"
	"fmt"
	"log"

	"github.com/stategraph/stategraph/store/memory"
)

func Example() {
	ctx := context.Background()
	s, err := memory.New()
	if err != nil {
		log.Fatal(err)
	}
	ns := []string{"users", "u42", "profile"}
	if err := s.Put(ctx, ns, "name", map[string]any{"first": "Ada"}); err != nil {
		log.Fatal(err)
	}
	it, err := s.Get(ctx, ns, "name")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(it.Value["first"])
	// Output: Ada
}
