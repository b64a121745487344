package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// Open a Saver, migrate, store a checkpoint and read it back. It needs a
// database, so it has no Output: go test compiles it but does not run it.
func Example() {
	ctx := context.Background()
	saver, err := postgres.Open(ctx, os.Getenv("STATEGRAPH_POSTGRES_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer saver.Close()
	if err := saver.Migrate(ctx); err != nil {
		log.Fatal(err)
	}

	thread := "example-" + checkpoint.NewID()
	defer saver.DeleteThread(ctx, thread) //nolint:errcheck // best effort

	cfg, err := saver.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now(),
			Versions:  map[string]string{"greeting": "1"},
			New:       map[string]checkpoint.Blob{"greeting": {Version: "1", Data: []byte(`"hello"`)}},
		},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1},
		ExpectHead: "", // the thread must be empty: a compare-and-set on its head
	})
	if err != nil {
		log.Fatal(err)
	}

	tup, err := saver.Get(ctx, checkpoint.Config{ThreadID: thread})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tup.Checkpoint.ID == cfg.CheckpointID, string(tup.Checkpoint.Values["greeting"].Snapshot))
}
