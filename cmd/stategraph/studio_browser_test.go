package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumEnv names a browser other than /usr/bin/chromium for the
// studio's browser tests.
const chromiumEnv = "STATEGRAPH_CHROMIUM"

// screenshotsEnv names a folder where the browser test saves the
// screenshots of docs/studio.md (docs/images).
const screenshotsEnv = "STATEGRAPH_STUDIO_SCREENSHOTS"

// deliveryDB writes the database a newcomer has after two runs of the
// plan-and-execute example: thread "done" answered, thread "ask" started
// with -approve and declined at the prompt, so it waits before respond.
// Both run round by round (-rounds), one execute task per step, the
// timeline the browser tests walk step by step.
func deliveryDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	example := filepath.Join(dir, "planexecute")
	out, err := exec.Command("go", "build", "-o", example, "../../examples/planexecute").CombinedOutput()
	require.NoError(t, err, "build the example: %s", out)
	db := filepath.Join(dir, "delivery.db")
	run := exec.Command(example, "-rounds", "-db", db, "-thread", "done")
	out, err = run.CombinedOutput()
	require.NoError(t, err, "run the example: %s", out)
	ask := exec.Command(example, "-rounds", "-db", db, "-thread", "ask", "-approve")
	ask.Stdin = strings.NewReader("n\n")
	out, err = ask.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit) && exit.ExitCode() == 3, "the declined run exits 3: %v: %s", err, out)
	return db
}

// startStudioOnNewFiles starts the studio on a checkpoint database and a
// server database, name.db and name.server.db, that do not exist yet in
// a folder of the test's own, and returns its base URL and that folder.
func startStudioOnNewFiles(t *testing.T, name string) (base, dir string) {
	dir = t.TempDir()
	c := studioConfig{serveConfig: serveConfig{db: filepath.Join(dir, name+".db"), store: filepath.Join(dir, name+".server.db")}}
	return startStudio(t, c), dir
}

// startStudio serves the studio over c on a free loopback port until the
// test ends, and returns its base URL.
func startStudio(t *testing.T, c studioConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() { done <- serveStudio(ctx, c, ln, &out) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		assert.Contains(t, out.String(), "stategraph studio: http://"+c.addr+"/studio/")
	})
	return "http://" + ln.Addr().String()
}

// browser starts headless Chromium for the test, or skips the test when
// there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browserAt(t, 1280, 860)
}

// browserAt is browser with a window of w×h pixels. The test fails on
// any uncaught exception, console error or browser log error (such as a
// Content-Security-Policy violation) of the page.
func browserAt(t *testing.T, w, h int) context.Context {
	t.Helper()
	path := os.Getenv(chromiumEnv)
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Chromium at %s (apt-get install -y chromium, or set %s): the studio's browser test needs one", path, chromiumEnv)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(w, h),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
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
			if e.Entry.Level == cdplog.EntryLevelError {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			mu.Lock()
			exceptions = append(exceptions, msg)
			mu.Unlock()
		}
	}), "start Chromium")
	// A guard against a hung browser, not a timed assertion.
	ctx, cancelTimeout := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, exceptions, "exceptions and console errors on the page")
	})
	return ctx
}

// textContains waits until the element sel's text contains want.
func textContains(sel, want string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => { const n = document.querySelector(%q); return !!n && !n.closest("[hidden]") && n.textContent.includes(%q); })()`, sel, want)
	return until(js)
}

// until waits until the JavaScript expression is true.
func until(expr string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond))
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, t)
		if err != nil {
			err = fmt.Errorf("waiting for %s: %w", expr, err)
		}
		return chromedp.Void{}, err
	}
}

// shot saves a screenshot for the docs when STATEGRAPH_STUDIO_SCREENSHOTS is set.
func shot(t *testing.T, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		dir := os.Getenv(screenshotsEnv)
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

// apiHistory reads a thread's checkpoints through the API, newest first.
func apiHistory(t *testing.T, base, thread string) []map[string]any {
	t.Helper()
	resp, err := http.Post(base+"/threads/"+thread+"/history", "application/json", strings.NewReader(`{"limit": 1000}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s", raw)
	var out []map[string]any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func checkpointID(st map[string]any) string {
	cp, _ := st["checkpoint"].(map[string]any)
	id, _ := cp["checkpoint_id"].(string)
	return id
}

// The scenario, in a real browser: the studio on the delivery
// example's database shows both threads; the finished one's replan step
// shows the blocked route in its diff; the -approve thread is answered
// from the page and finishes; an earlier checkpoint is forked with an
// edited field and the branch shows in the timeline; invalid JSON and a
// stale checkpoint are refused with a message and change nothing.
func TestStudioWatchesAnswersAndForksTheDeliveryThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example, then drives Chromium")
	}
	ctx := browser(t)
	dir := filepath.Dir(deliveryDB(t))
	db := filepath.Join(dir, "delivery.db")
	base := startStudio(t, studioConfig{serveConfig: serveConfig{db: db, store: filepath.Join(dir, "delivery.server.db")}})
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		for i, a := range actions {
			// A guard for one step, so that a failure names it.
			step, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := chromedp.Do(step, a)
			cancel()
			if err != nil {
				page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#message').textContent + " | " + document.querySelector('#run-bar').textContent + " | selected: " + (document.querySelector('#timeline li[aria-selected="true"]')?.outerHTML || "none") + " | rows " + document.querySelectorAll('#timeline li').length`))
				t.Fatalf("%s: step %d of %d: %v (the page's message and run bar: %s)", what, i+1, len(actions), err, page)
			}
		}
	}

	run("both threads are listed",
		chromedp.Navigate(base+"/studio/"),
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="done"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="ask"]`)),
		textContains("#thread-count", "2 of 2 threads"),
		textContains(`button[data-thread="ask"] .badge`, "interrupted"),
	)

	replan := `#timeline[data-thread="done"] li[data-step="5"][data-nodes="replan"]`
	run("the finished thread's replan step shows the blocked route",
		chromedp.Click(chromedp.CSS(`button[data-thread="done"]`)),
		chromedp.WaitVisible(chromedp.CSS(replan)),
		textContains("#timeline", "respond"),
		chromedp.Click(chromedp.CSS(replan)),
		chromedp.WaitVisible(chromedp.CSS(replan+`[aria-selected="true"]`)),
		textContains("#diff", "decisions.1"),
		textContains("#diff", "route is blocked"),
		textContains("#checkpoint-title", "step 5 (replan)"),
		until(`document.querySelector('#graph g.node.current[data-node="replan"]') !== null`),
		until(`document.querySelector('#graph g.edge.taken[data-source="replan"][data-target="execute"]') !== null`),
		shot(t, "studio-threads.png"),
		until(`(document.querySelector('#checkpoint-title').scrollIntoView(), true)`),
		shot(t, "studio-diff.png"),
		until(`(window.scrollTo(0, 0), true)`),
	)

	run("the arrow keys walk the timeline",
		chromedp.Focus(chromedp.CSS("#timeline")),
		chromedp.KeyEvent(kb.ArrowUp),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-step="4"][aria-selected="true"]`)),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-step="6"][aria-selected="true"]`)),
		chromedp.KeyEvent(kb.Home),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-step="-1"][aria-selected="true"]`)),
		chromedp.KeyEvent(kb.End),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-step="10"][aria-selected="true"]`)),
		until(`document.activeElement && document.activeElement.id === "timeline"`),
	)

	run("the interrupted thread is answered from the page and finishes",
		chromedp.Click(chromedp.CSS(`button[data-thread="ask"]`)),
		textContains("#thread-title", "ask"),
		chromedp.WaitVisible(chromedp.CSS(`#continue`)),
		textContains("#pending", "interrupted before respond"),
		shot(t, "studio-interrupt.png"),
		chromedp.Click(chromedp.CSS(`#continue`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-thread="ask"] li[data-nodes="respond"]`)),
		textContains("#thread-status", "idle"),
		until(`document.querySelector('#pending').hidden`),
	)
	askHead := apiHistory(t, base, "ask")[0]
	values, _ := askHead["values"].(map[string]any)
	response, _ := values["response"].(map[string]any)
	assert.Contains(t, response["text"], "warehouse B", "the answer the resumed run wrote")

	planner := `#timeline[data-thread="done"] li[data-step="1"][data-nodes="planner"]`
	before := len(apiHistory(t, base, "done"))
	run("invalid JSON in a state edit is refused and changes nothing",
		chromedp.Click(chromedp.CSS(`button[data-thread="done"]`)),
		chromedp.WaitVisible(chromedp.CSS(planner)),
		chromedp.Click(chromedp.CSS(planner)),
		chromedp.WaitVisible(chromedp.CSS(planner+`[aria-selected="true"]`)),
		chromedp.Click(chromedp.CSS(`#edit summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#edit-values`)),
		chromedp.SetValue(chromedp.CSS(`#edit-values`), `{"goal": "Friday?"`),
		chromedp.Click(chromedp.CSS(`#edit-submit`)),
		textContains("#message", "not valid JSON"),
		textContains("#message", "Nothing was changed"),
	)
	assert.Len(t, apiHistory(t, base, "done"), before, "no checkpoint written for invalid JSON")

	goal := "Can order O1001 arrive before Thursday 12:00? If not, find alternatives."
	run("an earlier checkpoint is forked with an edited field",
		chromedp.SetValue(chromedp.CSS(`#edit-field`), "goal"),
		until(`document.querySelector('#edit-field').dispatchEvent(new Event('change'))`),
		until(`document.querySelector('#edit-values').value.includes('"goal"')`),
		chromedp.SetValue(chromedp.CSS(`#edit-values`), fmt.Sprintf(`{"goal": %q}`, goal)),
		chromedp.Click(chromedp.CSS(`#edit-submit`)),
		textContains("#message", "Forked from"),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[aria-selected="true"] .mark.fork`)),
		until(`document.querySelector('#timeline li[aria-selected="true"]').dataset.lane !== "0"`),
		textContains("#diff", goal),
		until(`(document.querySelector('#timeline li[aria-selected="true"]').scrollIntoView({block: "center"}), true)`),
		shot(t, "studio-fork.png"),
	)
	hist := apiHistory(t, base, "done")
	require.Len(t, hist, before+1, "the fork wrote one checkpoint")
	fork := hist[0]
	md, _ := fork["metadata"].(map[string]any)
	assert.Equal(t, "update", md["source"])
	forkValues, _ := fork["values"].(map[string]any)
	assert.Equal(t, goal, forkValues["goal"])

	// Behind the page's back, the thread moves on: an edit of the head
	// the page shows is refused as stale.
	resp, err := http.Post(base+"/threads/done/state", "application/json", strings.NewReader(`{"values": {"goal": "moved on"}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	moved := len(apiHistory(t, base, "done"))
	run("an edit of a stale checkpoint is refused and changes nothing",
		chromedp.SetValue(chromedp.CSS(`#edit-values`), `{"goal": "mine"}`),
		chromedp.Click(chromedp.CSS(`#edit-submit`)),
		textContains("#message", "Stale checkpoint"),
		textContains("#message", "Nothing was written"),
	)
	hist = apiHistory(t, base, "done")
	assert.Len(t, hist, moved, "no checkpoint written for a stale edit")
	latest, _ := hist[0]["values"].(map[string]any)
	assert.Equal(t, "moved on", latest["goal"])
	assert.NotEqual(t, checkpointID(fork), checkpointID(hist[0]))

}
