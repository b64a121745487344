package checkpoint_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// A Sizer reports what a saver stores for a thread: its checkpoints and
// pending writes in every namespace, and their bytes.
func ExampleSizer() {
	ctx := context.Background()
	var saver checkpoint.Saver = memory.New()
	id := checkpoint.NewID()
	cfg, _ := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: id,
			Versions: map[string]string{"count": id},
			New:      map[string]checkpoint.Blob{"count": {Version: id, Data: []byte("12")}},
		},
		Metadata: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
	})
	_ = saver.PutWrites(ctx, cfg, "task-1", []checkpoint.PendingWrite{{TaskID: "task-1", Channel: "count", Value: []byte("3")}})
	if sz, ok := saver.(checkpoint.Sizer); ok {
		size, _ := sz.ThreadSize(ctx, "t1")
		fmt.Printf("%d checkpoint, %d write, %d bytes\n", size.Checkpoints, size.Writes, size.Bytes)
	}
	// Output:
	// 1 checkpoint, 1 write, 3 bytes
}
