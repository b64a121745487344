package retention_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention"
)

func Example() {
	ctx := context.Background()
	saver := memory.New()
	now := time.Now()
	for thread, age := range map[string]time.Duration{"last-year": 365 * 24 * time.Hour, "yesterday": 24 * time.Hour} {
		_, err := saver.Put(ctx, checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: thread},
			Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: now.Add(-age), Versions: map[string]string{}},
		})
		if err != nil {
			log.Fatal(err)
		}
	}

	// Threads untouched for 30 days go. Sweep is one pass (what a cron or
	// a scheduled job calls); sw.Run(ctx) sweeps every hour in-process.
	sw, err := retention.New(saver, retention.Policy{TTL: 30 * 24 * time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	report, err := sw.Sweep(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted:", report.Deleted)
	// Output:
	// deleted: [last-year]
}
