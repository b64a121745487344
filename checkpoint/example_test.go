package checkpoint_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// A saver stores checkpoints as a compare-and-set on the thread's head:
// a writer that lost the race gets ErrConflict and stores nothing.
func Example() {
	ctx := context.Background()
	var saver checkpoint.Saver = memory.New()

	first := checkpoint.NewID()
	_, err := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: first, Versions: map[string]string{"count": first},
			New: map[string]checkpoint.Blob{"count": {Version: first, Data: []byte("1")}}},
		Metadata: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
	})
	fmt.Println("first:", err)

	// A second writer that still believes the thread is empty loses.
	_, err = saver.Put(ctx, checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()},
		ExpectHead: "",
	})
	fmt.Println("stale writer conflicts:", errors.Is(err, checkpoint.ErrConflict))

	tup, _ := saver.Get(ctx, checkpoint.Config{ThreadID: "t1"})
	fmt.Println("latest count:", string(tup.Checkpoint.Values["count"].Snapshot))
	// Output:
	// first: <nil>
	// stale writer conflicts: true
	// latest count: 1
}
