// Coldopen is W7 of docs/performance.md: what a new process pays to open
// a SQLite checkpoint database and read the latest state of a thread of
// 2,002 checkpoints (W3's append loop at N = 1,000), as the inspector,
// serve and every resume do.
//
//	go run ./internal/benchmarks/coldopen -fill w7.db        # once: writes the thread "w7"
//	go build -o /tmp/coldopen ./internal/benchmarks/coldopen
//	for i in $(seq 20); do /tmp/coldopen w7.db; done        # one line a process
//
// Each run prints, in microseconds from the start of main (the Go
// runtime's and the packages' initialisation are before it and not
// counted): open (sqlite.Open), compile (the graph), state (its State:
// the latest checkpoint read and decoded) and total wall time, then the
// process's CPU time (user + system, all threads) over the same span,
// steadier than wall time on a loaded machine. BenchmarkW7 in
// internal/benchmarks runs it this way and reports the medians.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/state"
)

// n is the append loop's length: 2n+2 checkpoints.
const n = 1000

func main() {
	start, cpu0 := time.Now(), cpuTime()
	fill := flag.Bool("fill", false, "write the thread w7 into the database instead of reading it")
	prof := flag.String("cpuprofile", "", "write a CPU profile (sampled at 2 kHz) of main to `FILE`; merge many with go tool pprof")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: coldopen [-fill] PATH") }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "coldopen:", err)
			os.Exit(1)
		}
		runtime.SetCPUProfileRate(2000) // a run takes milliseconds: 100 Hz would miss it
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "coldopen:", err)
		}
	}
	err := run(start, cpu0, flag.Arg(0), *fill)
	pprof.StopCPUProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "coldopen:", err)
		os.Exit(1)
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(start time.Time, cpu0 time.Duration, path string, fill bool) error {
	ctx := context.Background()
	s, err := sqlite.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	opened := time.Now()
	c, err := benchmarks.AppendLoop(n, graph.WithCheckpointer(s))
	if err != nil {
		return err
	}
	compiled := time.Now()
	if fill {
		_, err := c.Invoke(ctx, state.Update[benchmarks.Counter]{}, graph.WithThread("w7"), graph.WithRecursionLimit(3*n))
		return err
	}
	snap, err := c.State(ctx, graph.WithThread("w7"))
	if err != nil {
		return err
	}
	if len(snap.Values.Items) != n {
		return fmt.Errorf("thread w7 holds %d items, not %d: fill the database with -fill", len(snap.Values.Items), n)
	}
	done, cpu := time.Now(), cpuTime()-cpu0
	us := func(d time.Duration) int64 { return d.Microseconds() }
	fmt.Printf("open %d compile %d state %d total %d cpu %d\n", us(opened.Sub(start)), us(compiled.Sub(opened)), us(done.Sub(compiled)), us(done.Sub(start)), us(cpu))
	return nil
}
