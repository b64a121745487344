package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// Open a file, store two checkpoints of a thread — the second with an
// append-only channel stored as a delta — and read the latest back.
func Example() {
	dir, err := os.MkdirTemp("", "stategraph-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	saver, err := sqlite.Open(filepath.Join(dir, "checkpoints.db"), sqlite.WithSynchronous(sqlite.SyncNormal))
	if err != nil {
		log.Fatal(err)
	}
	defer saver.Close()
	ctx := context.Background()

	// The input checkpoint: both channels are new.
	first, err := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "thread-1"},
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now(),
			Versions:  map[string]string{"question": "1", "messages": "1"},
			New: map[string]checkpoint.Blob{
				"question": {Version: "1", Data: []byte(`"capital of France?"`)},
				"messages": {Version: "1", Data: []byte(`["hi"]`)},
			},
		},
		Metadata: checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
	})
	if err != nil {
		log.Fatal(err)
	}

	// The next step appends one message: only its delta is stored, and
	// the unchanged question is not written again.
	_, err = saver.Put(ctx, checkpoint.PutRequest{
		Config: first, // the parent
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now(),
			Versions:  map[string]string{"question": "1", "messages": "2"},
			New: map[string]checkpoint.Blob{
				"messages": {Version: "2", Data: []byte(`["Paris"]`), Delta: true, Base: "1"},
			},
		},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0, Nodes: []string{"answer"}},
		ExpectHead: first.CheckpointID, // compare-and-set on the thread's head
	})
	if err != nil {
		log.Fatal(err)
	}

	latest, err := saver.Get(ctx, checkpoint.Config{ThreadID: "thread-1"})
	if err != nil {
		log.Fatal(err)
	}
	msgs := latest.Checkpoint.Values["messages"]
	fmt.Printf("step %d after %v\n", latest.Metadata.Step, latest.Metadata.Nodes)
	fmt.Printf("question: %s\n", latest.Checkpoint.Values["question"].Snapshot)
	fmt.Printf("messages: snapshot %s, deltas %q\n", msgs.Snapshot, msgs.Deltas)

	// A writer that did not see the new head is refused.
	_, err = saver.Put(ctx, checkpoint.PutRequest{
		Config:     first,
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()},
		ExpectHead: first.CheckpointID,
	})
	fmt.Println("stale writer conflicts:", errors.Is(err, checkpoint.ErrConflict))
	// Output:
	// step 0 after [answer]
	// question: "capital of France?"
	// messages: snapshot ["hi"], deltas ["[\"Paris\"]"]
	// stale writer conflicts: true
}
