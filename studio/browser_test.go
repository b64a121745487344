package studio_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/studio"
)

// chromium starts headless Chromium (Debian's, or $STATEGRAPH_CHROMIUM)
// for the test, or skips the test when there is none.
func chromium(t *testing.T) context.Context {
	t.Helper()
	return chromiumAt(t, 1280, 860)
}

// chromiumAt is chromium with a window of w×h pixels. The test fails
// on any uncaught exception, console error or browser log error (such
// as a Content-Security-Policy violation) of the page, except the
// network errors of requests whose URL contains one of failing (the API
// failing on purpose).
func chromiumAt(t testing.TB, w, h int, failing ...string) context.Context {
	t.Helper()
	path := os.Getenv("STATEGRAPH_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Chromium at %s (apt-get install -y chromium, or set STATEGRAPH_CHROMIUM): the studio's browser test needs one", path)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(w, h))
	bctx, cancelCtx := chromedp.NewContext(actx)
	var mu sync.Mutex
	var exceptions []string
	require.NoError(t, chromedp.Listen(bctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = e.ExceptionDetails.Text
			if x := e.ExceptionDetails.Exception; x != nil {
				msg += " " + x.Description
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				msg = "console.error"
				for _, a := range e.Args {
					msg += " " + string(a.Value) + a.Description
				}
			}
		case *cdplog.EventEntryAdded:
			expected := false
			for _, f := range failing {
				expected = expected || (e.Entry.Source == cdplog.EntrySourceNetwork && strings.Contains(e.Entry.URL, f))
			}
			if e.Entry.Level == cdplog.EntryLevelError && !expected {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			mu.Lock()
			exceptions = append(exceptions, msg)
			mu.Unlock()
		}
	}), "start Chromium")
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, exceptions, "exceptions and console errors on the page")
	})
	return bctx
}

// shot saves a screenshot of the page as name in the folder
// $STATEGRAPH_STUDIO_SCREENSHOTS names (the docs' images), and does
// nothing without it.
func shot(t *testing.T, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		dir := os.Getenv("STATEGRAPH_STUDIO_SCREENSHOTS")
		if dir == "" {
			return chromedp.Void{}, nil
		}
		png, err := chromedp.CaptureScreenshot()(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		t.Logf("screenshot %s", name)
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
}

// until waits until the JavaScript expression is true.
func until(expr string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond))
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, t)
		// A poll begun while a navigation replaces the document loses its
		// JavaScript context: begin again in the new one.
		for err != nil && strings.Contains(err.Error(), "Cannot find context with specified id") && ctx.Err() == nil {
			_, err = poll(ctx, t)
		}
		if err != nil {
			err = fmt.Errorf("waiting for %s: %w", expr, err)
		}
		return chromedp.Void{}, err
	}
}

type job struct{ Name, Result string }

// While a run streams, the graph marks its running node; Cancel run
// stops it, and Continue runs it on to the end.
func TestTheGraphShowsTheRunningNodeLiveAndCancelStopsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	gate := make(chan struct{})
	jobName := state.Value("name", func(j *job) *string { return &j.Name })
	jobResult := state.Value("result", func(j *job) *string { return &j.Result })
	app, err := graph.New(state.NewSchema(jobName, jobResult)).
		AddNode("prepare", func(ctx context.Context, j job) (state.Update[job], error) {
			return state.Writes(jobResult.Set("prepared " + j.Name)), nil
		}).
		AddNode("slow", func(ctx context.Context, j job) (state.Update[job], error) {
			select {
			case <-gate: // the test opens it once the page shows the node running
				return state.Writes(jobResult.Set(j.Result + ", done")), nil
			case <-ctx.Done():
				return state.Update[job]{}, ctx.Err()
			}
		}).
		AddEdge(graph.Start, "prepare").
		AddEdge("prepare", "slow").
		AddEdge("slow", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("jobs", app)})
	require.NoError(t, err)
	web := httptest.NewServer(studio.Beside(srv))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})

	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		for i, a := range actions {
			step, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard, not an assertion
			err := chromedp.Do(step, a)
			cancel()
			require.NoError(t, err, "%s: step %d", what, i+1)
		}
	}
	running := `document.querySelector('#graph g.node.running[data-node="slow"]') !== null`
	do("a run started from the page shows its running node",
		chromedp.Navigate(web.URL+"/studio/"),
		until(`document.querySelector('#run-graph').value === "jobs"`),
		until(`document.querySelector('#run-input').value.includes('"name"')`),
		jsonInput(`{"name": "report"}`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(running),
		until(`document.querySelector('#graph-path').textContent.includes('running: slow')`),
		until(`document.querySelector('#run-status').textContent.includes('is running: slow')`),
		chromedp.WaitVisible(chromedp.CSS(`#run-cancel`)),
	)
	do("Cancel run stops it and the thread waits before the node",
		chromedp.Click(chromedp.CSS(`#run-cancel`)),
		until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
		until(`document.querySelector('#graph g.node.running') === null`),
		chromedp.WaitVisible(chromedp.CSS(`#continue`)),
		until(`document.querySelector('#timeline li[aria-selected="true"] .mark.head').textContent.includes('next slow')`),
	)
	do("Continue runs the node again, live, to the end",
		chromedp.Click(chromedp.CSS(`#continue`)),
		until(running),
	)
	gate <- struct{}{}
	do("the run ends with the node's writes",
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		until(`document.querySelector('#graph g.node.running') === null`),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="slow"]`)),
		until(`document.querySelector('#state-tree').textContent.includes('prepared report, done')`),
		until(`document.querySelector('#graph g.edge.taken[data-source="slow"][data-target="__end__"]') !== null`),
	)
	do("Replay from an earlier checkpoint runs on a branch of its own",
		chromedp.Click(chromedp.CSS(`#timeline li[data-nodes="prepare"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="prepare"][aria-selected="true"]`)),
		chromedp.Click(chromedp.CSS(`#replay`)),
		until(running),
	)
	gate <- struct{}{}
	do("the replay ends on the new branch",
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		until(`document.querySelectorAll('#timeline li[data-nodes="slow"]').length === 2`),
		until(`[...document.querySelectorAll('#timeline li')].some((li) => li.dataset.lane !== "0")`),
		// The branch is indented (a lane class; the page's CSP blocks inline styles).
		until(`(() => { const rows = [...document.querySelectorAll('#timeline li')]; const pad = (li) => parseFloat(getComputedStyle(li).paddingLeft);
			const main = rows.find((li) => li.dataset.lane === "0"), branch = rows.find((li) => li.dataset.lane !== "0");
			return pad(branch) > pad(main) + 10; })()`),
	)
}

type ticket struct {
	Request string
	Answer  string
}

// A node's graph.Interrupt shows its question on the page; an answer
// that is not valid JSON in JSON mode is refused; a text answer resumes
// the run, which ends with the node's writes.
func TestAnInterruptIsAnsweredFromThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	request := state.Value("request", func(tk *ticket) *string { return &tk.Request })
	answer := state.Value("answer", func(tk *ticket) *string { return &tk.Answer })
	app, err := graph.New(state.NewSchema(request, answer)).
		AddNode("ask", func(ctx context.Context, tk ticket) (state.Update[ticket], error) {
			reply, err := graph.Interrupt[string](ctx, map[string]any{"question": "Refund " + tk.Request + "?"})
			if err != nil {
				return state.Update[ticket]{}, err
			}
			return state.Writes(answer.Set(reply)), nil
		}).
		AddEdge(graph.Start, "ask").
		AddEdge("ask", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("tickets", app)})
	require.NoError(t, err)
	web := httptest.NewServer(studio.Beside(srv))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})
	step, cancel := context.WithTimeout(ctx, time.Minute) // a guard, not an assertion
	defer cancel()
	require.NoError(t, chromedp.Do(step,
		chromedp.Navigate(web.URL+"/studio/"),
		until(`document.querySelector('#run-graph').value === "tickets"`),
		until(`document.querySelector('#run-input').value.includes('"request"')`),
		jsonInput(`{"request": "order O1001"}`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
		chromedp.WaitVisible(chromedp.CSS(`#pending .answer`)),
		until(`document.querySelector('#pending').textContent.includes('Refund order O1001?')`),
		until(`document.querySelector('#thread-status').textContent === "interrupted"`),
		chromedp.SetValue(chromedp.CSS(`#pending .answer`), `{"not": json`),
		chromedp.SetValue(chromedp.CSS(`#pending .answer-kind`), "json"),
		chromedp.Click(chromedp.CSS(`#answer-submit`)),
		until(`document.querySelector('#message').textContent.includes('not valid JSON') && document.querySelector('#message').textContent.includes('Nothing was sent')`),
		until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
		chromedp.SetValue(chromedp.CSS(`#pending .answer-kind`), "text"),
		chromedp.SetValue(chromedp.CSS(`#pending .answer`), "yes, in full"),
		chromedp.Click(chromedp.CSS(`#answer-submit`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		until(`document.querySelector('#pending').hidden`),
		until(`document.querySelector('#state-tree').textContent.includes('"yes, in full"')`),
		until(`document.querySelector('#thread-status').textContent === "idle"`),
	))
}
