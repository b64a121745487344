package workermetrics_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/workermetrics"
	"github.com/stategraph/stategraph/worker"
)

// A worker process reports its fleet's queue and its takeovers beside the
// runs' own metrics.
func ExampleRegister() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	mp := sdkmetric.NewMeterProvider() // with the reader or exporter of your choice
	tel := telemetry.New(telemetry.WithMeterProvider(mp))
	client, err := worker.New(pool, worker.NewRegistry())
	if err != nil {
		log.Fatal(err)
	}
	r, err := workermetrics.Register(tel, client)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Unregister()
}
