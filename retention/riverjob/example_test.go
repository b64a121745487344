package riverjob_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/retention"
	"github.com/stategraph/stategraph/retention/riverjob"
	"github.com/stategraph/stategraph/worker"
)

// Every worker process gets the same option; the fleet sweeps once an
// hour, whichever process River elects.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STATEGRAPH_POSTGRES_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	sw, err := retention.New(postgres.New(pool), retention.Policy{TTL: 30 * 24 * time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	job, err := riverjob.New(sw, riverjob.Every(time.Hour))
	if err != nil {
		log.Fatal(err)
	}
	reg := worker.NewRegistry() // register the graphs here
	c, err := worker.New(pool, reg, job.Option())
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer c.Stop(ctx) //nolint:errcheck // example
}
