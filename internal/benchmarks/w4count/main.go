// W4count runs W4 of docs/performance.md (a fan-out to 50 branches
// appending to a list, then a join) a given number of times in a plain
// process, without the test framework, so that an instruction counter
// sees little besides the runs:
//
//	go build -o /tmp/w4count ./internal/benchmarks/w4count
//	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//	    --toggle-collect='main.runs' /tmp/w4count 200
//
// main.runs holds only the loop of runs, so callgrind's --toggle-collect
// counts the runs and none of the start-up; the per-run figure is the
// difference of two counts over the difference of their run counts
// (docs/performance.md gives the exact commands).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/state"
)

func main() {
	n := 100
	if len(os.Args) > 1 {
		var err error
		if n, err = strconv.Atoi(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "usage: w4count [runs]")
			os.Exit(2)
		}
	}
	c, err := benchmarks.FanOut(50)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if out := runs(c, n); out.N != 50 || len(out.Items) != 50 {
		fmt.Fprintf(os.Stderr, "w4count: the last run ended with N = %d and %d items, want 50\n", out.N, len(out.Items))
		os.Exit(1)
	}
}

// runs invokes c n times and returns the last run's state.
//
//go:noinline
func runs(c *graph.Compiled[benchmarks.Counter], n int) benchmarks.Counter {
	ctx := context.Background()
	var out benchmarks.Counter
	for range n {
		var err error
		if out, err = c.Invoke(ctx, state.Update[benchmarks.Counter]{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	return out
}
