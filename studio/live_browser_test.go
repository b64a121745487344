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

// jobsGraph is a graph of one node, prepare, writing "prepared NAME".
func jobsGraph(t *testing.T) *graph.Compiled[job] {
	t.Helper()
	jobResult := state.Value("result", func(j *job) *string { return &j.Result })
	app, err := graph.New(state.NewSchema(state.Value("name", func(j *job) *string { return &j.Name }), jobResult)).
		AddNode("prepare", func(ctx context.Context, j job) (state.Update[job], error) {
			return state.Writes(jobResult.Set("prepared " + j.Name)), nil
		}).
		AddEdge(graph.Start, "prepare").
		AddEdge("prepare", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return app
}

// Auto-refresh (#31): with the page open, a thread written through the
// API appears in the list, and checkpoints added to the open thread
// appear in its timeline, without Refresh; the indicator says when the
// page last looked, and pausing it stops the looking.
func TestNewThreadsAndCheckpointsAppearWithoutRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	web := serve(t, nil, server.Register("jobs", jobsGraph(t)))
	run := func(tid, name string) {
		apiJSON[map[string]any](t, "POST", web+"/threads/"+tid+"/runs/wait", fmt.Sprintf(`{"assistant_id": "jobs", "input": {"name": %q}}`, name))
	}
	apiJSON[map[string]any](t, "POST", web+"/threads", `{"thread_id": "first", "graph_id": "jobs"}`)
	run("first", "a")
	count := func(tid string) (int, string) {
		hist := apiJSON[[]map[string]any](t, "POST", web+"/threads/"+tid+"/history", `{"limit": 100}`)
		return len(hist), fmt.Sprint(hist[0]["metadata"].(map[string]any)["step"])
	}
	n, _ := count("first")
	steps(t, ctx, "the page opens on the first thread",
		chromedp.Navigate(web+"/studio/#thread=first"),
		until(fmt.Sprintf(`document.querySelectorAll('#timeline li').length === %d`, n)),
		until(`document.querySelector('#live').dataset.state === "on"`),
		until(`document.querySelector('#live-status').textContent.includes("looked at")`),
	)

	apiJSON[map[string]any](t, "POST", web+"/threads", `{"thread_id": "second", "graph_id": "jobs"}`)
	run("second", "b")
	run("first", "c") // the open thread moves on
	more, head := count("first")
	require.Greater(t, more, n)
	steps(t, ctx, "the new thread is listed and the open one shows its new checkpoints",
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="second"]`)),
		until(`document.querySelector('#thread-count').textContent.startsWith("2 of 2")`),
		until(fmt.Sprintf(`document.querySelectorAll('#timeline li').length === %d`, more)),
		until(`document.querySelector('#timeline li[aria-selected="true"]').dataset.step === "`+head+`"`),
		until(`document.querySelector('#state-tree').textContent.includes('prepared c')`),
	)

	steps(t, ctx, "paused, the page stops looking",
		chromedp.Click(chromedp.CSS(`#live-toggle`)),
		until(`document.querySelector('#live').dataset.state === "paused"`),
		until(`document.querySelector('#live-status').textContent === "Auto-refresh paused"`),
	)
}
