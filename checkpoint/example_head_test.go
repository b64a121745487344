package checkpoint_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// A HeadGetter reads a checkpoint without its fields' values: the ids,
// metadata, versions and pending writes, and the reserved channels'
// values such as the schedule. A reader that holds the decoded state of
// that checkpoint id needs nothing more.
func ExampleHeadGetter() {
	ctx := context.Background()
	var saver checkpoint.Saver = memory.New()
	id := checkpoint.NewID()
	_, _ = saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: id,
			Versions: map[string]string{"count": id, checkpoint.NextChannel: id},
			New: map[string]checkpoint.Blob{
				"count":                {Version: id, Data: []byte("1")},
				checkpoint.NextChannel: {Version: id, Data: []byte(`{"nodes":["a"]}`)},
			}},
		Metadata: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
	})
	if hg, ok := saver.(checkpoint.HeadGetter); ok {
		head, _ := hg.GetHead(ctx, checkpoint.Config{ThreadID: "t1"})
		fmt.Println("head is the latest:", head.Checkpoint.ID == id)
		fmt.Println("versions:", len(head.Checkpoint.Versions))
		fmt.Println("values:", len(head.Checkpoint.Values), string(head.Checkpoint.Values[checkpoint.NextChannel].Snapshot))
	}
	// Output:
	// head is the latest: true
	// versions: 2
	// values: 1 {"nodes":["a"]}
}
