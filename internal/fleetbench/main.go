package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is what the flags set.
type config struct {
	dsn       string
	procs     []int
	runs      int
	workers   int
	fleet     int // runs the whole fleet executes at once (0: workers a process)
	limit     int // worker.WithFleetLimit of every process (0: none)
	pool      int
	repeat    int
	verbose   bool
	keep      bool
	step      time.Duration
	steps     int
	timeout   time.Duration
	workerRun bool
	schema    string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("fleetbench: ")
	var cfg config
	var procs string
	flag.StringVar(&cfg.dsn, "dsn", os.Getenv("STATEGRAPH_POSTGRES_DSN"), "PostgreSQL DSN (default $STATEGRAPH_POSTGRES_DSN)")
	flag.StringVar(&procs, "procs", "1,2,4,8", "process counts to measure, comma-separated")
	flag.IntVar(&cfg.runs, "runs", 1000, "runs to drain per measurement")
	flag.IntVar(&cfg.workers, "workers", 10, "runs a process executes at once (worker.WithWorkers)")
	flag.IntVar(&cfg.fleet, "fleet", 0, "runs the fleet executes at once, split evenly over its processes (overrides -workers; 0: -workers a process)")
	flag.IntVar(&cfg.limit, "limit", 0, "the fleet's enforced bound on runs at once (worker.WithFleetLimit; 0: none); a process's pool is then worker.PoolSize of min(-workers, -limit)")
	flag.IntVar(&cfg.pool, "pool", 0, "pgxpool MaxConns of a process (0: worker.PoolSize of -workers)")
	flag.IntVar(&cfg.repeat, "repeat", 1, "measurements per process count")
	flag.IntVar(&cfg.steps, "steps", 10, "nodes of the graph's chain")
	flag.DurationVar(&cfg.step, "node", 2*time.Millisecond, "how long each node waits")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "longest a measurement may take")
	flag.BoolVar(&cfg.verbose, "v", false, "print each measurement's statements per run")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the schemas")
	flag.BoolVar(&cfg.workerRun, "worker", false, "run as a worker process (used by fleetbench itself)")
	flag.StringVar(&cfg.schema, "schema", "", "the schema of a worker process (used by fleetbench itself)")
	flag.Parse()
	if cfg.dsn == "" {
		log.Fatal("no DSN: pass -dsn or set STATEGRAPH_POSTGRES_DSN")
	}
	if cfg.workerRun {
		if err := runWorker(cfg); err != nil {
			log.Fatal(err)
		}
		return
	}
	for _, p := range strings.Split(procs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			log.Fatalf("-procs: %q is not a process count", p)
		}
		cfg.procs = append(cfg.procs, n)
	}
	ctx := context.Background()
	var results []result
	fmt.Println(header)
	for _, n := range cfg.procs {
		for range cfg.repeat {
			r, err := measure(ctx, cfg, n)
			if err != nil {
				log.Fatalf("%d processes: %v", n, err)
			}
			fmt.Println(r.row())
			if cfg.verbose {
				fmt.Print(r.statementsTable())
			}
			results = append(results, r)
		}
	}
	if len(results) > 0 && results[0].note != "" {
		fmt.Println()
		fmt.Println(results[0].note)
	}
}
