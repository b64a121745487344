// Mapreduce counts words with map-reduce: a router fans the documents out
// with graph.FanOut, one graph.SendTo("count", …) per document, so every
// count task runs in the same superstep with its own input; a custom
// reducer (state.Reduce) adds up their counts in Send order; a reduce node
// runs once after all of them and ranks the words.
//
//	go run ./examples/mapreduce
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Corpus is the state: the documents, the one document a count task works
// on (set only in a Send's input), the word counts, which documents were
// counted, and the ranking.
type Corpus struct {
	Docs    []string
	Doc     string
	Counts  map[string]int
	Counted []string
	Top     []string
}

var (
	docs    = state.Value("docs", func(c *Corpus) *[]string { return &c.Docs })
	doc     = state.Value("doc", func(c *Corpus) *string { return &c.Doc })
	counts  = state.Reduce("counts", func(c *Corpus) *map[string]int { return &c.Counts }, addCounts)
	counted = state.Append("counted", func(c *Corpus) *[]string { return &c.Counted })
	top     = state.Value("top", func(c *Corpus) *[]string { return &c.Top })
	schema  = state.NewSchema(docs, doc, counts, counted, top)
)

// addCounts is the reducer of counts: it returns a new map with both sums
// (the old map may be shared with a node's view of the state).
func addCounts(old, update map[string]int) map[string]int {
	out := maps.Clone(old)
	if out == nil {
		out = map[string]int{}
	}
	for w, n := range update {
		out[w] += n
	}
	return out
}

// count is the map task: it counts the words of its one document.
func count(_ context.Context, c Corpus) (state.Update[Corpus], error) {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(c.Doc), func(r rune) bool {
		return !('a' <= r && r <= 'z')
	}) {
		if len(w) > 3 {
			m[w]++
		}
	}
	return state.Writes(counts.Set(m), counted.Set([]string{c.Doc})), nil
}

// rank is the reduce node: it runs once, after every count task, and
// keeps the five most frequent words (ties in alphabetical order).
func rank(_ context.Context, c Corpus) (state.Update[Corpus], error) {
	words := slices.Sorted(maps.Keys(c.Counts))
	slices.SortStableFunc(words, func(a, b string) int { return c.Counts[b] - c.Counts[a] })
	var out []string
	for _, w := range words[:min(5, len(words))] {
		out = append(out, fmt.Sprintf("%s %d", w, c.Counts[w]))
	}
	return state.Writes(top.Set(out)), nil
}

// build compiles start ⇒ count (one task per document) → rank → end.
func build() (*graph.Compiled[Corpus], error) {
	return graph.New(schema).
		AddNode("count", count).
		AddNode("rank", rank).
		AddConditionalEdges(graph.Start, graph.FanOut(func(_ context.Context, c Corpus) ([]graph.Send[Corpus], error) {
			var sends []graph.Send[Corpus]
			for _, d := range c.Docs {
				sends = append(sends, graph.SendTo("count", Corpus{Doc: d}))
			}
			return sends, nil
		}), "count").
		AddEdge("count", "rank").
		Compile()
}

// Proverbs are the documents: a few Go proverbs.
var Proverbs = []string{
	"Don't communicate by sharing memory, share memory by communicating.",
	"Concurrency is not parallelism.",
	"Channels orchestrate, mutexes serialize.",
	"The bigger the interface, the weaker the abstraction.",
	"Make the zero value useful.",
	"A little copying is better than a little dependency.",
	"Clear is better than clever.",
	"Errors are values.",
	"Don't just check errors, handle them gracefully.",
	"Documentation is for users.",
}

// run counts the words of the documents, printing each task as it
// finishes, and returns the final state.
func run(ctx context.Context, documents []string, out io.Writer) (Corpus, error) {
	app, err := build()
	if err != nil {
		return Corpus{}, err
	}
	var final Corpus
	for ev, err := range app.Stream(ctx, state.Writes(docs.Set(documents)), graph.StreamModes(graph.Updates, graph.Values)) {
		if err != nil {
			return final, err
		}
		switch ev.Mode {
		case graph.Updates:
			fmt.Fprintf(out, "step %d  %-5s %s\n", ev.Step, ev.Node, describe(ev.Update))
		case graph.Values:
			final = ev.State
		}
	}
	return final, nil
}

// describe renders what a task wrote.
func describe(u state.Update[Corpus]) string {
	var parts []string
	for _, w := range u.Writes {
		switch v := w.Value().(type) {
		case map[string]int:
			parts = append(parts, fmt.Sprintf("%d distinct words", len(v)))
		case []string:
			if w.Field() == "counted" {
				parts = append([]string{fmt.Sprintf("%q:", v[0])}, parts...)
			} else {
				parts = append(parts, "ranked: "+strings.Join(v, ", "))
			}
		}
	}
	return strings.Join(parts, " ")
}

func main() {
	if code, exit := parseFlags(flag.NewFlagSet("mapreduce", flag.ContinueOnError), os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
	c, err := run(context.Background(), Proverbs, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mapreduce:", err)
		os.Exit(1)
	}
	fmt.Printf("\n%d count tasks ran in one step, in parallel; their writes were applied in Send order:\n", len(c.Counted))
	for i, d := range c.Counted {
		fmt.Printf("  %2d. %s\n", i+1, d)
	}
	fmt.Printf("top words: %s\n", strings.Join(c.Top, ", "))
}
