package worker_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// A worker process: register a graph, migrate, work runs; any process
// can enqueue a run and follow it. It needs a database, so it has no
// Output: go test compiles it but does not run it.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STATEGRAPH_POSTGRES_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	// The graph checkpoints to the same database.
	saver := postgres.New(pool)
	app, err := graph.New(docs).
		AddNode("write", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			return state.Writes(trailF.Set([]string{"draft on " + d.Topic})), nil
		}).
		AddEdge(graph.Start, "write").
		Compile(graph.WithCheckpointer(saver))
	if err != nil {
		log.Fatal(err)
	}

	// One line per graph: its name, the compiled graph, how its JSON
	// input becomes an update.
	reg := worker.NewRegistry()
	worker.Register(reg, "writer", app, worker.JSONInput(func(in DocInput) (state.Update[Doc], error) {
		return state.Writes(topicF.Set(in.Topic)), nil
	}))

	client, err := worker.New(pool, reg, worker.WithSaver(saver), worker.WithWorkers(4))
	if err != nil {
		log.Fatal(err)
	}
	if err := client.Migrate(ctx); err != nil { // River's tables, the runs, the checkpoints
		log.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer client.Stop(ctx) //nolint:errcheck // example

	id, err := client.Enqueue(ctx, worker.Request{
		Graph:    "writer",
		Thread:   "essay-42",
		Input:    DocInput{Topic: "Go"},
		Strategy: worker.Enqueue, // wait behind a run already on the thread
	})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range client.Follow(ctx, id) {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Kind {
		case worker.EventCheckpoint:
			fmt.Println("checkpoint at step", ev.Step, ev.Nodes)
		case worker.EventStatus:
			fmt.Println("status", ev.Status)
			if ev.Status.Done() {
				fmt.Println(string(ev.Run.Result), ev.Run.Err())
			}
		}
	}
}

// A process of a fleet bounded at 20 runs at once whatever its size:
// each process may hold 10 runs, its pool is sized for them, and the
// slots of WithFleetLimit keep the sum at 20. It needs a database, so it
// has no Output.
func ExampleWithFleetLimit() {
	ctx := context.Background()
	const budget, perProcess = 20, 10
	cfg, err := pgxpool.ParseConfig(os.Getenv("STATEGRAPH_POSTGRES_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.MaxConns = worker.PoolSize(min(perProcess, budget))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	reg := worker.NewRegistry() // register the fleet's graphs here
	client, err := worker.New(pool, reg, worker.WithWorkers(perProcess), worker.WithFleetLimit(budget))
	if err != nil {
		log.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer client.Stop(ctx) //nolint:errcheck // example
	held, busy := client.Slots()
	fmt.Println(held, busy)
}
