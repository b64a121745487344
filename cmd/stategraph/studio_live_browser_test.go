package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// drive runs the actions, each under a guard against a hung page, and
// names the failing one with the page's message.
func drive(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for i, a := range actions {
		step, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard, not an assertion
		err := chromedp.Do(step, a)
		cancel()
		if err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#message')?.textContent || "") + " | " + (document.querySelector('#run-bar')?.textContent || "") + " | " + (document.querySelector('#pending')?.textContent || "")`))
			t.Fatalf("%s: step %d of %d: %v (the page's message, run bar and pending: %s)", what, i+1, len(actions), err, page)
		}
	}
}

// apiGet reads path of the API and decodes its JSON answer, checking the status.
func apiGet[T any](t *testing.T, url string, status int) T {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "GET %s: %s", url, raw)
	var out T
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	return out
}

// writeEssay runs the served essay graph on thread over saver, as another
// program on the same database would.
func writeEssay(t testing.TB, saver checkpoint.Saver, thread, topic string) {
	t.Helper()
	graphs, err := servegraphs.Graphs(saver)
	require.NoError(t, err)
	for _, g := range graphs {
		if g.ID() != "essay" {
			continue
		}
		for _, err := range g.Run(context.Background(), server.RunInput{Thread: thread, Input: json.RawMessage(`{"topic": "` + topic + `"}`), Modes: graph.Values}) {
			require.NoError(t, err)
		}
		return
	}
	t.Fatal("no essay graph")
}

// Defect 1 of #31: threads written by another program while the studio
// runs are listed after Refresh and readable at once, also a thread of a
// graph the studio does not serve, which opens read-only with the reason.
func TestStudioListsThreadsWrittenWhileItRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := browser(t)
	db := newDB(t, "live.db", func(tb testing.TB, saver checkpoint.Saver) { writeEssay(tb, saver, "first", "Go") })
	base := startStudio(t, studioConfig{serveConfig: serveConfig{db: db, store: filepath.Join(filepath.Dir(db), "live.server.db")}})
	drive(t, ctx, "the thread written before the start is listed",
		chromedp.Navigate(base+"/studio/"),
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="first"]`)),
		textContains("#thread-count", "1 of 1 thread"),
	)

	// Another program writes two threads: one of a served graph, one of a
	// graph the studio does not serve.
	other, err := sqlite.Open(db)
	require.NoError(t, err)
	writeEssay(t, other, "later", "Rust")
	app, err := docGraph(approve).Compile(graph.WithCheckpointer(other))
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), state.Writes(topicF.Set("elsewhere")), graph.WithThread("foreign"))
	require.NoError(t, err)
	writeEssay(t, other, "direct", "Zig")
	require.NoError(t, other.Close())

	// Read by id before any search: no 404.
	direct := apiGet[map[string]any](t, base+"/threads/direct/state", 200)
	assert.Contains(t, direct["values"].(map[string]any)["drafts"], "Zig, draft 3")

	drive(t, ctx, "Refresh lists the new threads; the served one opens with its timeline",
		chromedp.Click(chromedp.CSS(`#refresh`)),
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="later"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#thread-list button[data-thread="foreign"]`)),
		textContains("#thread-count", "4 of 4 threads"),
		textContains(`button[data-thread="foreign"] .sub`, "read-only"),
		chromedp.Click(chromedp.CSS(`button[data-thread="later"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-thread="later"] li[data-nodes="write"]`)),
		textContains("#state-tree", "Rust, draft 3"),
		until(`document.querySelector('#read-only').hidden`),
	)
	drive(t, ctx, "the thread of a graph the studio does not serve opens read-only, saying why",
		chromedp.Click(chromedp.CSS(`button[data-thread="foreign"]`)),
		textContains("#read-only", "no served graph has the fields"),
		textContains("#read-only", "revisions"),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-thread="foreign"] li`)),
		textContains("#state-tree", "elsewhere"),
		textContains("#graph", "not served"),
		until(`document.querySelector('#run-here').disabled && document.querySelector('#replay').disabled && document.querySelector('#edit-submit').disabled`),
	)
	later := apiGet[map[string]any](t, base+"/threads/later/state", 200)
	assert.Contains(t, later["values"].(map[string]any)["drafts"], "Rust, draft 3")
	foreign := apiGet[map[string]any](t, base+"/threads/foreign/state", 200)
	assert.Equal(t, "elsewhere", foreign["values"].(map[string]any)["topic"])
	hist := postJSON[[]map[string]any](t, base+"/threads/foreign/history", `{"limit": 100}`, 200)
	assert.Greater(t, len(hist), 3, "the foreign thread's checkpoints are all readable")
}

// Defect 9 of #31: the first run of planexecute from the page's
// pre-filled input succeeds; a run stopped by its recursion limit is
// described as such, with the page's remedy, not as a crash.
func TestStudioFirstRunsSucceedAndARecursionStopIsExplained(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := browser(t)
	base, _ := startStudioOnNewFiles(t, "first")
	drive(t, ctx, "planexecute's pre-filled input runs to the end",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelector('#run-graph').value === "planexecute"`),
		until(`document.querySelector('#run-input').value.includes("O1001")`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="respond"]`)),
		until(`document.querySelector('#message').hidden`),
	)
	threads := postJSON[[]map[string]any](t, base+"/threads/search", `{}`, 200)
	require.Len(t, threads, 1)
	response, _ := threads[0]["values"].(map[string]any)["response"].(map[string]any)
	assert.NotEmpty(t, response["text"], "the run answered")

	drive(t, ctx, "essay with a recursion limit of 2 stops, and the page says why",
		chromedp.SetValue(chromedp.CSS(`#run-graph`), "essay"),
		until(`document.querySelector('#run-graph').dispatchEvent(new Event('change'))`),
		until(`document.querySelector('#run-input').value.includes('"topic": "Go"')`),
		chromedp.SetValue(chromedp.CSS(`#run-limit`), "2"),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "error"`),
		textContains("#message", "recursion limit: 2 steps ran"),
		until(`!document.querySelector('#message').textContent.includes("WithRecursionLimit")`),
		textContains("#pending", "stopped at its recursion limit"),
		textContains("#pending", "Nothing failed"),
		until(`!document.querySelector('#pending').textContent.includes("crash")`),
		until(`document.querySelector('#graph g.node.failed') === null`),
	)
	threads = postJSON[[]map[string]any](t, base+"/threads/search", `{"metadata": {"graph_id": "essay"}}`, 200)
	require.Len(t, threads, 1)
	assert.Len(t, threads[0]["values"].(map[string]any)["drafts"], 2, "the run stopped after its 2 steps")
}

// The chat view (#31): a thread with messages is a conversation; a human
// message sent from the box runs the chat assistant; its tool call and
// the call's result are folded under the AI message; a calculate call
// waits for review, approved inline, and the turn ends with its result.
func TestStudioChatViewSendsMessagesAndReviewsToolCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := browser(t)
	base, _ := startStudioOnNewFiles(t, "chat")
	weather := `#chat-log li.msg.ai details.call[data-tool="get_weather"]`
	drive(t, ctx, "the first turn from the pre-filled input",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelector('#run-graph option[value="chat"]') !== null`),
		chromedp.SetValue(chromedp.CSS(`#run-graph`), "chat"),
		until(`document.querySelector('#run-graph').dispatchEvent(new Event('change'))`),
		until(`document.querySelector('#run-input').value.includes("weather in Oslo")`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		chromedp.WaitVisible(chromedp.CSS(`#chat`)),
		textContains(`#chat-log li.msg.human`, "What is the weather in Oslo?"),
		chromedp.WaitVisible(chromedp.CSS(weather)),
		until(`document.querySelector('`+weather+` pre.result').textContent === "Oslo: sunny, 21°C"`),
		until(`document.querySelectorAll('#chat-log li.msg.tool').length === 0`),
		textContains(`#chat-log li.msg.ai:last-child .text`, "Here is what I found: Oslo: sunny, 21°C."),
	)
	drive(t, ctx, "a message from the box; its calculate call is reviewed inline",
		chromedp.SetValue(chromedp.CSS(`#chat-input`), "what is 12 * 7?"),
		chromedp.Click(chromedp.CSS(`#chat-send`)),
		until(`document.querySelector('#run-bar').dataset.status === "interrupted"`),
		chromedp.WaitVisible(chromedp.CSS(`#chat-log form.review .review-action`)),
		textContains(`#chat-log form.review`, "calculate"),
		until(`document.querySelector('#pending').hidden`),
		until(`document.querySelector('#chat-send').disabled`),
		shot(t, "studio-chat-review.png"),
		chromedp.SetValue(chromedp.CSS(`#chat-log form.review .review-action`), "approve"),
		chromedp.Click(chromedp.CSS(`#review-submit`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		until(`document.querySelector('#chat-log details.call[data-tool="calculate"] pre.result')?.textContent === "12 * 7 = 84"`),
		textContains(`#chat-log li.msg.ai:last-child .text`, "12 * 7 = 84"),
		until(`document.querySelector('#chat-log form.review') === null`),
		until(`(document.querySelectorAll('#chat-log details.call').forEach((d) => { d.open = true; }), document.querySelector('#chat').scrollIntoView(), true)`),
		shot(t, "studio-chat.png"),
	)
	threads := postJSON[[]map[string]any](t, base+"/threads/search", `{}`, 200)
	require.Len(t, threads, 1)
	msgs, _ := threads[0]["values"].(map[string]any)["messages"].([]any)
	var types []string
	for _, m := range msgs {
		types = append(types, m.(map[string]any)["type"].(string))
	}
	assert.Equal(t, []string{"human", "ai", "tool", "ai", "human", "ai", "tool", "ai"}, types)
	last := msgs[len(msgs)-1].(map[string]any)
	assert.True(t, strings.Contains(last["content"].(string), "12 * 7 = 84"), "%v", last)
	human := msgs[4].(map[string]any)
	assert.Equal(t, "what is 12 * 7?", human["content"], "the page sent the human message as LangChain clients do")
}

// The trace view (#31): the studio's server records the spans of the runs
// it executes (the runtime's observer, package telemetry), and each
// checkpoint shows the waterfall of the run that wrote it: the run, its
// steps and tasks, its checkpoint writes, its model calls with their
// provider and tokens and its tool calls, the checkpoint's own write
// marked.
func TestStudioTraceViewShowsTheRunThatWroteACheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := browser(t)
	base, dir := startStudioOnNewFiles(t, "trace")
	drive(t, ctx, "a chat turn from the page, then its trace",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelector('#run-graph option[value="chat"]') !== null`),
		chromedp.SetValue(chromedp.CSS(`#run-graph`), "chat"),
		until(`document.querySelector('#run-graph').dispatchEvent(new Event('change'))`),
		until(`document.querySelector('#run-input').value.includes("weather in Oslo")`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		until(`document.querySelector('#run-bar').dataset.status === "success"`),
		chromedp.WaitVisible(chromedp.CSS(`#trace table.waterfall`)),
		chromedp.WaitVisible(chromedp.CSS(`#trace tr[data-span="run chat"]`)),
		until(`document.querySelectorAll('#trace tr[data-span="task agent"]').length === 2`),
		until(`document.querySelectorAll('#trace tr[data-span="chat"]').length === 2`),
		textContains(`#trace tr[data-span="chat"] .span-details`, "provider chatdemo"),
		textContains(`#trace tr[data-span="chat"] .span-details`, "tokens 0 in, 0 out"),
		// The chat assistant's tool call is a span of the run too.
		textContains(`#trace tr[data-span="execute_tool get_weather"] .span-details`, "tool get_weather"),
		textContains(`#trace tr.mine .span-details`, "this checkpoint"),
		until(`document.querySelector('#trace tr.mine').dataset.span === "checkpoint loop"`),
		until(`[...document.querySelectorAll('#trace .bar')].every((b) => b.style.width !== "")`),
		until(`(document.querySelector('#trace-title').scrollIntoView(), true)`),
		shot(t, "studio-trace.png"),
	)
	threads := postJSON[[]map[string]any](t, base+"/threads/search", `{}`, 200)
	require.Len(t, threads, 1)
	tid := threads[0]["thread_id"].(string)
	head := apiGet[map[string]any](t, base+"/threads/"+tid+"/state", 200)
	runID := head["metadata"].(map[string]any)["run_id"]
	traces := apiGet[struct {
		Recording bool             `json:"recording"`
		Runs      []map[string]any `json:"runs"`
	}](t, base+"/studio/traces?thread="+tid, 200)
	assert.True(t, traces.Recording)
	require.Len(t, traces.Runs, 1)
	assert.Equal(t, runID, traces.Runs[0]["run_id"], "the trace is the run that wrote the head")
	_, err := os.Stat(filepath.Join(dir, "trace.traces.db"))
	assert.NoError(t, err, "the traces are kept beside the checkpoints")
}

// The traces the studio recorded are kept beside its database: a studio
// started again on it shows the run's trace.
func TestStudioKeepsTracesAcrossARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := studioConfig{serveConfig: serveConfig{db: filepath.Join(dir, "kept.db"), store: filepath.Join(dir, "kept.server.db")}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveStudio(ctx, c, ln, io.Discard) }()
	base := "http://" + ln.Addr().String()
	postJSON[map[string]any](t, base+"/threads", `{"thread_id": "k"}`, 200)
	postJSON[map[string]any](t, base+"/threads/k/runs/wait", `{"assistant_id": "essay", "input": {"topic": "Go"}}`, 200)
	cancel()
	require.NoError(t, <-done)

	again := startStudio(t, c)
	traces := apiGet[struct {
		Runs []map[string]any `json:"runs"`
	}](t, again+"/studio/traces?thread=k", 200)
	require.Len(t, traces.Runs, 1)
	assert.Equal(t, "essay", traces.Runs[0]["graph"])
}
