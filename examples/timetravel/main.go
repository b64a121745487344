// Timetravel shows a thread's history and how to go back in it: replay
// from a past checkpoint (graph.WithCheckpoint with a zero input runs the
// steps after it again, on a new branch) and fork with an edited state
// (UpdateState pinned to a past checkpoint, then resume). Earlier steps
// never run again; the old branch stays in the history.
//
//	go run ./examples/timetravel
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Trip is the state: a city, the hotel found there and its price, the
// booking, and the nodes that ran, in order.
type Trip struct {
	City    string
	Hotel   string
	Price   int
	Booking string
	Ran     []string
}

var (
	city    = state.Value("city", func(t *Trip) *string { return &t.City })
	hotel   = state.Value("hotel", func(t *Trip) *string { return &t.Hotel })
	price   = state.Value("price", func(t *Trip) *int { return &t.Price })
	booking = state.Value("booking", func(t *Trip) *string { return &t.Booking })
	ran     = state.Append("ran", func(t *Trip) *[]string { return &t.Ran })
	schema  = state.NewSchema(city, hotel, price, booking, ran)
)

// Planner is the graph choose_city → find_hotel → book, and counts how
// often each node ran. find_hotel's price changes from one call to the
// next, as live prices do, so a replay can find a different one.
type Planner struct {
	App   *graph.Compiled[Trip]
	mu    sync.Mutex
	calls map[string]int
}

// NewPlanner compiles the graph with an in-memory checkpointer.
func NewPlanner() (*Planner, error) {
	p := &Planner{calls: map[string]int{}}
	app, err := graph.New(schema).
		AddNode("choose_city", func(_ context.Context, t Trip) (state.Update[Trip], error) {
			p.count("choose_city")
			return state.Writes(city.Set("Porto"), ran.Set([]string{"choose_city"})), nil
		}).
		AddNode("find_hotel", func(_ context.Context, t Trip) (state.Update[Trip], error) {
			n := p.count("find_hotel")
			name := map[string]string{"Porto": "Casa do Rio", "Lisbon": "Alfama Rooms"}[t.City]
			return state.Writes(hotel.Set(name), price.Set(120-15*(n-1)), ran.Set([]string{"find_hotel"})), nil
		}).
		AddNode("book", func(_ context.Context, t Trip) (state.Update[Trip], error) {
			p.count("book")
			return state.Writes(booking.Set(fmt.Sprintf("%s, %s, %d a night", t.Hotel, t.City, t.Price)), ran.Set([]string{"book"})), nil
		}).
		AddEdge(graph.Start, "choose_city").
		AddEdge("choose_city", "find_hotel").
		AddEdge("find_hotel", "book").
		Compile(graph.WithCheckpointer(memory.New()))
	p.App = app
	return p, err
}

func (p *Planner) count(node string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[node]++
	return p.calls[node]
}

// Calls returns how many times node ran.
func (p *Planner) Calls(node string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[node]
}

// Results are the bookings of the three runs on the thread.
type Results struct {
	First, Replayed, Forked Trip
}

// run books a trip, replays it from the checkpoint after choose_city, and
// forks it with another city, printing the history as it goes.
func run(ctx context.Context, p *Planner, out io.Writer) (Results, error) {
	var res Results
	thread := graph.WithThread("trip")
	var err error
	if res.First, err = p.App.Invoke(ctx, state.Writes(ran.Set(nil)), thread); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "booked: %s\n\nhistory, newest first:\n", res.First.Booking)
	if err := printHistory(ctx, p.App, out); err != nil {
		return res, err
	}

	// The checkpoint after choose_city: find_hotel is next. Its Ran is the
	// history a replay or a fork from it starts with.
	var afterCity string
	var before int
	for snap, err := range p.App.History(ctx, thread) {
		if err != nil {
			return res, err
		}
		if len(snap.Next) == 1 && snap.Next[0] == "find_hotel" {
			afterCity, before = snap.Config.CheckpointID, len(snap.Values.Ran)
		}
	}

	// Replay: run what followed that checkpoint again, on a new branch.
	if res.Replayed, err = p.App.Invoke(ctx, state.Update[Trip]{}, thread, graph.WithCheckpoint(afterCity)); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "\nreplayed from the checkpoint after choose_city: %s\n", res.Replayed.Booking)
	fmt.Fprintf(out, "  %s\n", whatRan(res.Replayed.Ran, before, "replay", p))

	// Fork: edit the state at that checkpoint as if choose_city had
	// chosen Lisbon, then resume the thread from the edit.
	cfg, err := p.App.UpdateState(ctx, state.Writes(city.Set("Lisbon")), "choose_city", thread, graph.WithCheckpoint(afterCity))
	if err != nil {
		return res, err
	}
	if res.Forked, err = p.App.Invoke(ctx, state.Update[Trip]{}, thread); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "\nforked at %s with city=Lisbon: %s\n", short(cfg.CheckpointID), res.Forked.Booking)
	fmt.Fprintf(out, "  %s\n\nhistory, newest first:\n", whatRan(res.Forked.Ran, before, "fork", p))
	return res, printHistory(ctx, p.App, out)
}

// whatRan tells the nodes of a branch's state that came with the checkpoint it
// started from (the first before of them) from those that ran on it, and
// how often choose_city has run in all.
func whatRan(nodes []string, before int, branch string, p *Planner) string {
	return fmt.Sprintf("from the checkpoint: %s · ran on the %s: %s (choose_city has run %d time in all)",
		strings.Join(nodes[:before], " → "), branch, strings.Join(nodes[before:], " → "), p.Calls("choose_city"))
}

// printHistory prints one line per checkpoint: step, source, the nodes it
// applied, what runs next, its id and its parent's.
func printHistory(ctx context.Context, app *graph.Compiled[Trip], out io.Writer) error {
	for snap, err := range app.History(ctx, graph.WithThread("trip")) {
		if err != nil {
			return err
		}
		parent := "-"
		if snap.Parent != nil {
			parent = short(snap.Parent.CheckpointID)
		}
		fmt.Fprintf(out, "  %s ← %-7s  step %2d  %-6s  nodes=%-13s next=%-12s city=%s price=%d\n",
			short(snap.Config.CheckpointID), parent, snap.Metadata.Step, snap.Metadata.Source,
			strings.Join(snap.Metadata.Nodes, ","), strings.Join(snap.Next, ","), snap.Values.City, snap.Values.Price)
	}
	return nil
}

// short abbreviates a checkpoint id to its last 6 characters (ids are
// time-ordered, so the start changes least).
func short(id string) string {
	if len(id) <= 6 {
		return id
	}
	return "…" + id[len(id)-6:]
}

func main() {
	if code, exit := parseFlags(flag.NewFlagSet("timetravel", flag.ContinueOnError), os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
	p, err := NewPlanner()
	if err == nil {
		_, err = run(context.Background(), p, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "timetravel:", err)
		os.Exit(1)
	}
}
