package memory_test

import (
	"context"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// Two checkpoints of a thread: the input, then a step that changed only
// "count". The second put stores one blob; Get still returns every channel.
func Example() {
	ctx := context.Background()
	saver := memory.New()

	first, err := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now(),
			Versions:  map[string]string{"topic": "1", "count": "1"},
			New: map[string]checkpoint.Blob{
				"topic": {Version: "1", Data: []byte(`"gophers"`)},
				"count": {Version: "1", Data: []byte(`0`)},
			},
		},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
		ExpectHead: "", // the thread must be empty
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = saver.Put(ctx, checkpoint.PutRequest{
		Config: first, // the parent
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now(),
			Versions:  map[string]string{"topic": "1", "count": "2"},
			New:       map[string]checkpoint.Blob{"count": {Version: "2", Data: []byte(`1`)}},
		},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, Nodes: []string{"increment"}},
		ExpectHead: first.CheckpointID, // fails with ErrConflict if another run moved the thread
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	latest, err := saver.Get(ctx, checkpoint.Config{ThreadID: "t1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("latest: topic=%s count=%s\n", latest.Checkpoint.Values["topic"].Snapshot, latest.Checkpoint.Values["count"].Snapshot)
	fmt.Println("parent is the first:", latest.Parent.CheckpointID == first.CheckpointID)

	for tup, err := range saver.List(ctx, checkpoint.Config{ThreadID: "t1"}, checkpoint.ListOptions{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("step %d (%s): count=%s\n", tup.Metadata.Step, tup.Metadata.Source, tup.Checkpoint.Values["count"].Snapshot)
	}
	// Output:
	// latest: topic="gophers" count=1
	// parent is the first: true
	// step 0 (loop): count=1
	// step -1 (input): count=0
}
