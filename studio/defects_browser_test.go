package studio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/studio"
)

// serve serves graphs and the page until the test ends; wrap, if not
// nil, wraps the API (to make it fail on purpose).
func serve(t testing.TB, wrap func(http.Handler) http.Handler, graphs ...server.Graph) string {
	t.Helper()
	srv, err := server.New(graphs)
	require.NoError(t, err)
	var api http.Handler = srv
	if wrap != nil {
		api = wrap(srv)
	}
	web := httptest.NewServer(studio.Beside(api))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})
	return web.URL
}

// steps runs the actions, each under a guard against a hung page, and
// names the failing one.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for i, a := range actions {
		step, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard, not an assertion
		err := chromedp.Do(step, a)
		cancel()
		if err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#message')?.textContent || "") + " | " + (document.querySelector('#run-bar')?.textContent || "")`))
			t.Fatalf("%s: step %d of %d: %v (message and run bar: %s)", what, i+1, len(actions), err, page)
		}
	}
}

// apiJSON calls the API and decodes its answer.
func apiJSON[T any](t testing.TB, method, url, body string) T {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s %s: %s", method, url, raw)
	var out T
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	return out
}

// startRun fills the run box with input and starts a run on a new thread
// of graph id.
func startRun(id, input string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		until(`document.querySelector('#run-graph option[value="` + id + `"]') !== null`),
		chromedp.SetValue(chromedp.CSS(`#run-graph`), id),
		jsonInput(input),
		chromedp.Click(chromedp.CSS(`#run-new`)),
	}
}

// jsonInput switches the run box to JSON, once the page has built the
// form of the graph's input schema, and types input into it.
func jsonInput(input string) chromedp.Action[chromedp.Void] {
	return all(
		until(`document.querySelector('#new-run-form').dataset.mode !== undefined`),
		chromedp.Click(chromedp.CSS(`#run-mode-json`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "json"`),
		chromedp.SetValue(chromedp.CSS(`#run-input`), input),
	)
}

// all is one action of the actions given, run in order.
func all(actions ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for _, a := range actions {
			if _, err := a(ctx, t); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
}

type note struct{ Text string }

// Defect 4 of #31: a long interrupt value (one line of 6,000 characters)
// wraps inside the page at 1024×768; the page does not grow wider than
// the window and the answer box stays on screen.
func TestALongInterruptValueWrapsAndTheAnswerBoxStaysOnScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromiumAt(t, 1024, 768)
	text := state.Value("text", func(n *note) *string { return &n.Text })
	long := strings.Repeat("x", 6000)
	app, err := graph.New(state.NewSchema(text)).
		AddNode("ask", func(ctx context.Context, n note) (state.Update[note], error) {
			reply, err := graph.Interrupt[string](ctx, map[string]any{"question": "Accept?", "evidence": long})
			if err != nil {
				return state.Update[note]{}, err
			}
			return state.Writes(text.Set(reply)), nil
		}).
		AddEdge(graph.Start, "ask").AddEdge("ask", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	base := serve(t, nil, server.Register("notes", app))
	steps(t, ctx, "a long interrupt value stays inside the window",
		append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/studio/")},
			append(startRun("notes", `{"text": "start"}`),
				until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
				chromedp.WaitVisible(chromedp.CSS(`#pending .answer`)),
				until(`document.querySelector('#pending pre').textContent.includes("xxxx")`),
				until(`document.documentElement.scrollWidth <= window.innerWidth`),
				until(`(() => { const r = document.querySelector('#pending .answer').getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth && r.width > 100; })()`),
				until(`(() => { const r = document.querySelector('#answer-submit').getBoundingClientRect(); return r.right <= window.innerWidth; })()`),
				chromedp.SetValue(chromedp.CSS(`#pending .answer`), "accepted"),
				chromedp.Click(chromedp.CSS(`#answer-submit`)),
				until(`document.querySelector('#run-bar').dataset.status === "success"`),
			)...)...)
	threads := apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`)
	require.Len(t, threads, 1)
	assert.Equal(t, map[string]any{"text": "accepted"}, threads[0]["values"])
}

type order struct {
	Item  string
	Notes []string
	Tags  []string
}

// packAndShip compiles the orders graph most page tests drive, on a
// memory saver: pack appends ", packed" to the item, then ship appends
// ", shipped", or fails with shipErr when it is not nil.
func packAndShip(t *testing.T, shipErr error) *graph.Compiled[order] {
	t.Helper()
	item := state.Value("item", func(o *order) *string { return &o.Item })
	app, err := graph.New(state.NewSchema(item)).
		AddNode("pack", func(ctx context.Context, o order) (state.Update[order], error) {
			return state.Writes(item.Set(o.Item + ", packed")), nil
		}).
		AddNode("ship", func(ctx context.Context, o order) (state.Update[order], error) {
			if shipErr != nil {
				return state.Update[order]{}, shipErr
			}
			return state.Writes(item.Set(o.Item + ", shipped")), nil
		}).
		AddEdge(graph.Start, "pack").AddEdge("pack", "ship").AddEdge("ship", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return app
}

// Defects 5 and 6 of #31: a fork of a thread whose list fields nothing
// wrote shows only the field it changed (the API gives [] for an empty
// list, never null), and its branch is indented with no console error.
func TestAForkShowsOnlyTheFieldsItChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	item := state.Value("item", func(o *order) *string { return &o.Item })
	notes := state.Append("notes", func(o *order) *[]string { return &o.Notes })
	tags := state.Value("tags", func(o *order) *[]string { return &o.Tags })
	app, err := graph.New(state.NewSchema(item, notes, tags)).
		AddNode("pack", func(ctx context.Context, o order) (state.Update[order], error) {
			return state.Writes(item.Set(o.Item + ", packed")), nil
		}).
		AddNode("ship", func(ctx context.Context, o order) (state.Update[order], error) {
			return state.Writes(item.Set(o.Item + ", shipped")), nil
		}).
		AddEdge(graph.Start, "pack").AddEdge("pack", "ship").AddEdge("ship", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	base := serve(t, nil, server.Register("orders", app))
	pack := `#timeline li[data-nodes="pack"]`
	steps(t, ctx, "fork the pack step with a new item",
		append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/studio/")},
			append(startRun("orders", `{"item": "lamp"}`),
				until(`document.querySelector('#run-bar').dataset.status === "success"`),
				chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="ship"]`)),
				chromedp.Click(chromedp.CSS(pack)),
				chromedp.WaitVisible(chromedp.CSS(pack+`[aria-selected="true"]`)),
				chromedp.Click(chromedp.CSS(`#edit summary`)),
				chromedp.SetValue(chromedp.CSS(`#edit-values`), `{"item": "desk"}`),
				chromedp.SetValue(chromedp.CSS(`#edit-node`), ""),
				chromedp.Click(chromedp.CSS(`#edit-submit`)),
				textContains("#message", "Forked from"),
				chromedp.WaitVisible(chromedp.CSS(`#timeline li[aria-selected="true"] .mark.fork`)),
				textContains("#diff", `"desk"`),
				until(`document.querySelectorAll('#diff tbody tr').length === 1`),
				until(`!document.querySelector('#diff').textContent.includes('null')`),
				until(`(() => { const rows = [...document.querySelectorAll('#timeline li')]; const pad = (li) => parseFloat(getComputedStyle(li).paddingLeft);
					const main = rows.find((li) => li.dataset.lane === "0"), branch = rows.find((li) => li.dataset.lane !== "0");
					return !!branch && pad(branch) > pad(main) + 10; })()`),
			)...)...)
	threads := apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`)
	require.Len(t, threads, 1)
	hist := apiJSON[[]map[string]any](t, "POST", base+"/threads/"+threads[0]["thread_id"].(string)+"/history", `{"limit": 100}`)
	for _, st := range hist {
		values := st["values"].(map[string]any)
		if len(values) == 0 {
			continue // the input checkpoint, before any field was written
		}
		assert.Equal(t, []any{}, values["notes"], "an append field nothing wrote is the empty list")
		assert.Equal(t, []any{}, values["tags"], "a list field nothing wrote is the empty list")
	}
	assert.Equal(t, "desk", hist[0]["values"].(map[string]any)["item"])
}

// Defect 8 of #31: when the API fails to read a thread, the page shows
// that thread with the error only, never the header, timeline, graph or
// checkpoint of the thread open before.
func TestAThreadThatCannotBeReadShowsOnlyWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromiumAt(t, 1280, 860, "/threads/broken/history")
	item := state.Value("item", func(o *order) *string { return &o.Item })
	app, err := graph.New(state.NewSchema(item)).
		AddNode("pack", func(ctx context.Context, o order) (state.Update[order], error) {
			return state.Writes(item.Set(o.Item + ", packed")), nil
		}).
		AddEdge(graph.Start, "pack").AddEdge("pack", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	broken := func(api http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/threads/broken/history") {
				http.Error(w, `{"detail": "the database is unreachable"}`, http.StatusInternalServerError)
				return
			}
			api.ServeHTTP(w, r)
		})
	}
	base := serve(t, broken, server.Register("orders", app))
	for _, tid := range []string{"good", "broken"} {
		apiJSON[map[string]any](t, "POST", base+"/threads", `{"thread_id": "`+tid+`", "graph_id": "orders"}`)
		apiJSON[map[string]any](t, "POST", base+"/threads/"+tid+"/runs/wait", `{"assistant_id": "orders", "input": {"item": "`+tid+`"}}`)
	}
	steps(t, ctx, "open the good thread, then the broken one",
		chromedp.Navigate(base+"/studio/"),
		chromedp.Click(chromedp.CSS(`button[data-thread="good"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-thread="good"] li[data-nodes="pack"]`)),
		chromedp.Click(chromedp.CSS(`button[data-thread="broken"]`)),
		textContains("#message", "the database is unreachable"),
		textContains("#thread-title", "broken"),
		until(`document.querySelector('button[data-thread="broken"]').getAttribute('aria-current') === "true"`),
		until(`document.querySelector('#thread-body').hidden && document.querySelector('#thread-status').hidden`),
		until(`document.querySelectorAll('#timeline li').length === 0 && document.querySelector('#timeline').dataset.thread === undefined`),
		until(`document.querySelector('#empty-hint').dataset.error === "true" && document.querySelector('#empty-hint').textContent.includes("broken")`),
		until(`document.querySelector('#run-here').disabled`),
		chromedp.Click(chromedp.CSS(`button[data-thread="good"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-thread="good"] li[data-nodes="pack"]`)),
		until(`!document.querySelector('#thread-body').hidden && document.querySelector('#thread-title').textContent === "good"`),
	)
}

// Defect 9 of #31, the failed node: a run whose node fails draws that
// node as failed, not as next, and says the run failed in it.
func TestAFailedNodeIsDrawnAsFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	app := packAndShip(t, errors.New("the carrier refused the parcel"))
	base := serve(t, nil, server.Register("orders", app))
	steps(t, ctx, "a failed run",
		append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/studio/")},
			append(startRun("orders", `{"item": "lamp"}`),
				until(`document.querySelector('#run-bar').dataset.status === "error"`),
				textContains("#message", "the carrier refused the parcel"),
				until(`document.querySelector('#graph g.node.failed[data-node="ship"]') !== null`),
				until(`document.querySelector('#graph g.node.next[data-node="ship"]') === null`),
				textContains("#graph-path", "failed: ship"),
				textContains("#pending", "failed in ship"),
				textContains("#continue", "Retry"),
			)...)...)
	threads := apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`)
	require.Len(t, threads, 1)
	assert.Equal(t, "error", threads[0]["status"])
}

type plan struct {
	Goal  string
	Steps []planStep
}

type planStep struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Status string `json:"status"`
}

// Defect 10 of #31: a replan that replaced a step in the middle of a list
// of steps with ids shows one removed and one added step, matched by id,
// not a change of every later position; at 1024×768 the diff is on the
// first screen of the checkpoint.
func TestListDiffsMatchElementsByID(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromiumAt(t, 1024, 768)
	goal := state.Value("goal", func(p *plan) *string { return &p.Goal })
	stepsF := state.Value("steps", func(p *plan) *[]planStep { return &p.Steps })
	app, err := graph.New(state.NewSchema(goal, stepsF)).
		AddNode("planner", func(ctx context.Context, p plan) (state.Update[plan], error) {
			return state.Writes(stepsF.Set([]planStep{{"order", "lookup", "done"}, {"deliver_a", "route", "pending"}, {"notify", "mail", "pending"}, {"close", "crm", "pending"}})), nil
		}).
		AddNode("replan", func(ctx context.Context, p plan) (state.Update[plan], error) {
			out := []planStep{p.Steps[0], {"b_stock", "stock", "pending"}, p.Steps[2], p.Steps[3]}
			out[2].Status = "ready"
			return state.Writes(stepsF.Set(out)), nil
		}).
		AddEdge(graph.Start, "planner").AddEdge("planner", "replan").AddEdge("replan", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	base := serve(t, nil, server.Register("plans", app))
	replan := `#timeline li[data-nodes="replan"]`
	steps(t, ctx, "the replan's diff",
		append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/studio/")},
			append(startRun("plans", `{"goal": "deliver O1001"}`),
				until(`document.querySelector('#run-bar').dataset.status === "success"`),
				chromedp.Click(chromedp.CSS(replan)),
				chromedp.WaitVisible(chromedp.CSS(replan+`[aria-selected="true"]`)),
				textContains("#diff", "steps[id=deliver_a]"),
				until(`(() => { const rows = [...document.querySelectorAll('#diff tbody tr')].map((tr) => tr.textContent);
					return rows.length === 3 && rows.some((r) => r.startsWith("steps[id=deliver_a]removed")) &&
						rows.some((r) => r.startsWith("steps[id=b_stock]added")) && rows.some((r) => r.startsWith("steps[id=notify].statuschanged")); })()`),
				until(`!document.querySelector('#diff').textContent.includes("steps.2")`),
				until(`(window.scrollTo(0, 0), document.querySelector('#diff').getBoundingClientRect().top < window.innerHeight - 100)`),
			)...)...)
}

// textContains waits until the element sel is shown and its text contains want.
func textContains(sel, want string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => { const n = document.querySelector(%q); return !!n && !n.closest("[hidden]") && n.textContent.includes(%q); })()`, sel, want)
	return until(js)
}

// Defect 7 of #31, a long thread: it opens on its newest 30 checkpoints
// (not its whole history), scrolled to the newest; "Load older
// checkpoints" reads the page of 100 before them, and so does scrolling
// the timeline to its top, down to the thread's first checkpoint.
func TestALongThreadOpensOnItsNewestPageAndLoadsOlder(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	n := state.Value("n", func(c *counter) *int { return &c.N })
	app, err := graph.New(state.NewSchema(n)).
		AddNode("count", func(ctx context.Context, c counter) (state.Update[counter], error) {
			return state.Writes(n.Set(c.N + 1)), nil
		}).
		AddEdge(graph.Start, "count").
		AddConditionalEdges("count", graph.Choose(func(ctx context.Context, c counter) (string, error) {
			if c.N < 230 {
				return "count", nil
			}
			return graph.End, nil
		}), "count", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	base := serve(t, nil, server.Register("counter", app))
	apiJSON[map[string]any](t, "POST", base+"/threads", `{"thread_id": "long", "graph_id": "counter"}`)
	apiJSON[map[string]any](t, "POST", base+"/threads/long/runs/wait", `{"assistant_id": "counter", "input": {"n": 0}, "config": {"recursion_limit": 500}}`)
	hist := apiJSON[[]map[string]any](t, "POST", base+"/threads/long/history", `{"limit": 1000}`)
	require.Len(t, hist, 232, "input, loop and 230 steps")
	steps(t, ctx, "the newest page, then the older ones",
		chromedp.Navigate(base+"/studio/#thread=long"),
		until(`document.querySelectorAll('#timeline li').length === 30`),
		until(`document.querySelector('#timeline li[aria-selected="true"]').dataset.step === "230"`),
		// The newest checkpoint is in view at the bottom of the timeline.
		until(`(() => { const tl = document.querySelector('#timeline').getBoundingClientRect(), li = document.querySelector('#timeline li[aria-selected="true"]').getBoundingClientRect();
			return li.top >= tl.top && li.bottom <= tl.bottom + 1; })()`),
		chromedp.Click(chromedp.CSS(`#load-older`)),
		until(`document.querySelectorAll('#timeline li').length === 130`),
		// The rows in view stayed in view: the selected one did not move off.
		until(`(() => { const tl = document.querySelector('#timeline').getBoundingClientRect(), li = document.querySelector('#timeline li[aria-selected="true"]').getBoundingClientRect();
			return li.top >= tl.top && li.bottom <= tl.bottom + 1; })()`),
		until(`(document.querySelector('#timeline').scrollTop = 0, true)`), // scrolled to the top: the next page loads
		until(`document.querySelectorAll('#timeline li').length === 230`),
		until(`document.querySelector('#timeline').scrollTop > 0`), // the rows in view stayed in view
		until(`(document.querySelector('#timeline').scrollTop = 0, true)`),
		until(`document.querySelectorAll('#timeline li').length === 232`),
		until(`document.querySelector('#load-older').hidden`),
		until(`[...document.querySelectorAll('#timeline li')].every((li) => li.dataset.lane === "0")`),
		until(`document.querySelector('#timeline li[aria-selected="true"]').dataset.step === "230"`),
		chromedp.Focus(chromedp.CSS(`#timeline`)),
		chromedp.KeyEvent(kb.Home),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-step="-1"][aria-selected="true"]`)),
	)
}

// Interrupts from the page (#31): a run started with "Stop before nodes"
// waits before that node (interrupt_before) and Continue runs it; a node
// the graph does not have is refused before anything starts.
func TestARunStopsBeforeTheNodesThePageNames(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	app := packAndShip(t, nil)
	base := serve(t, nil, server.Register("orders", app))
	steps(t, ctx, "a node the graph does not have is refused",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelector('#run-graph').value === "orders"`),
		jsonInput(`{"item": "lamp"}`),
		chromedp.SetValue(chromedp.CSS(`#run-before`), "nope"),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		textContains("#message", "has no node nope"),
	)
	assert.Empty(t, apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`), "nothing was started")
	steps(t, ctx, "stop before ship, then continue",
		chromedp.SetValue(chromedp.CSS(`#run-before`), "ship"),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
		textContains("#pending", "before ship"),
		textContains("#thread-status", "interrupted"),
	)
	threads := apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`)
	require.Len(t, threads, 1)
	tid := threads[0]["thread_id"].(string)
	head := apiJSON[map[string]any](t, "GET", base+"/threads/"+tid+"/state", "")
	assert.Equal(t, []any{"ship"}, head["next"])
	assert.Equal(t, "lamp, packed", head["values"].(map[string]any)["item"])
	steps(t, ctx, "continue",
		chromedp.Click(chromedp.CSS(`#continue`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
	)
	head = apiJSON[map[string]any](t, "GET", base+"/threads/"+tid+"/state", "")
	assert.Equal(t, "lamp, packed, shipped", head["values"].(map[string]any)["item"])
}
