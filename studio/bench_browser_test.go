package studio_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

type counter struct {
	N    int
	Log  []string
	Goal string
}

// longThreads serves 999 threads of a small counting graph and one
// thread, "long", of 1,000 steps (1,002 checkpoints, a list field growing
// by one string a step), and returns the server's URL.
func longThreads(t testing.TB) string {
	n := state.Value("n", func(c *counter) *int { return &c.N })
	logF := state.Append("log", func(c *counter) *[]string { return &c.Log })
	goal := state.Value("goal", func(c *counter) *string { return &c.Goal })
	app, err := graph.New(state.NewSchema(n, logF, goal)).
		AddNode("count", func(ctx context.Context, c counter) (state.Update[counter], error) {
			return state.Writes(n.Set(c.N+1), logF.Set([]string{fmt.Sprintf("step %d of %s", c.N+1, c.Goal)})), nil
		}).
		AddEdge(graph.Start, "count").
		AddConditionalEdges("count", graph.Choose(func(ctx context.Context, c counter) (string, error) {
			if c.N < 1 || (c.Goal == "long" && c.N < 1000) {
				return "count", nil
			}
			return graph.End, nil
		}), "count", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	web := serve(t, nil, server.Register("counter", app))
	for i := range 999 {
		tid := fmt.Sprintf("t%04d", i)
		apiJSON[map[string]any](t, "POST", web+"/threads", `{"thread_id": "`+tid+`", "graph_id": "counter"}`)
		apiJSON[map[string]any](t, "POST", web+"/threads/"+tid+"/runs/wait", `{"assistant_id": "counter", "input": {"goal": "short"}}`)
	}
	apiJSON[map[string]any](t, "POST", web+"/threads", `{"thread_id": "long", "graph_id": "counter"}`)
	apiJSON[map[string]any](t, "POST", web+"/threads/long/runs/wait", `{"assistant_id": "counter", "input": {"goal": "long"}, "config": {"recursion_limit": 2000}}`)

	head := apiJSON[map[string]any](t, "GET", web+"/threads/long/state", "")
	require.EqualValues(t, 1000, head["values"].(map[string]any)["n"], "the long thread ran its 1,000 steps")
	return web
}

// The page's own timings (the Performance API, read through CDP) for
// #31's targets: a list of 1,000 threads ready, a thread of 1,000
// checkpoints open (on its newest 30), and one move of the timeline's
// selection by key, with the style and layout it causes.
//
//	go test -run '^$' -bench BenchmarkStudioPage -benchtime 5x ./studio/
func BenchmarkStudioPage(b *testing.B) {
	web := longThreads(b)
	ctx := chromiumAt(b, 1280, 860)
	mark := func(url, wait, name string) float64 {
		require.NoError(b, chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url), until(wait)))
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByName("`+name+`").at(-1).startTime`))
		require.NoError(b, err)
		return ms
	}
	b.Run("list 1000 threads", func(b *testing.B) {
		var total float64
		for b.Loop() {
			total += mark(web+"/studio/", `document.querySelector('#thread-count').textContent.startsWith("1000 of 1000") && document.querySelectorAll('#thread-list button.thread').length === 100`, "studio:threads")
		}
		b.ReportMetric(total/float64(b.N), "ms/ready")
	})
	b.Run("open a thread of 1000 checkpoints", func(b *testing.B) {
		var total float64
		for b.Loop() {
			total += mark(web+"/studio/#thread=long", `document.querySelectorAll('#timeline li').length === 30 && performance.getEntriesByName("studio:thread").length > 0`, "studio:thread")
		}
		b.ReportMetric(total/float64(b.N), "ms/ready")
	})
	b.Run("move the selection by key", func(b *testing.B) {
		mark(web+"/studio/#thread=long", `document.querySelectorAll('#timeline li').length === 30`, "studio:thread")
		var total float64
		for b.Loop() {
			// The move's script, then the style and layout it leaves
			// (forced by reading a size), as the next frame would do them.
			ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const tl = document.querySelector('#timeline'); tl.focus(); document.body.getBoundingClientRect();
				const t0 = performance.now(); tl.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowUp', bubbles: true})); document.body.getBoundingClientRect(); return performance.now() - t0; })()`))
			require.NoError(b, err)
			total += ms
		}
		b.ReportMetric(total/float64(b.N), "ms/key")
	})
}
