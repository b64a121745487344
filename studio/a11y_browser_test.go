package studio_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"

	"github.com/stategraph/stategraph/server"
)

// contrast is a JavaScript function: the WCAG contrast ratio of two CSS
// colours ("rgb(…)" or "rgba(…)").
const contrast = `((a, b) => {
	const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map((x) => { x = x / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
		return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
	return (x + 0.05) / (y + 0.05);
})`

// Defect 11 of #31: control borders and the focus ring meet WCAG AA's
// 3:1 for non-text contrast; the thread list is one Tab stop walked with
// the arrow keys; the graph's nodes are buttons, by keyboard and pointer,
// that select the checkpoint their last run wrote.
func TestThePageMeetsContrastAndKeyboardTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	app := packAndShip(t, nil)
	base := serve(t, nil, server.Register("orders", app))
	for _, tid := range []string{"t1", "t2", "t3"} {
		apiJSON[map[string]any](t, "POST", base+"/threads", `{"thread_id": "`+tid+`", "graph_id": "orders"}`)
		apiJSON[map[string]any](t, "POST", base+"/threads/"+tid+"/runs/wait", `{"assistant_id": "orders", "input": {"item": "`+tid+`"}}`)
	}
	before := len(apiJSON[[]map[string]any](t, "POST", base+"/threads/t2/history", `{"limit": 100}`))
	steps(t, ctx, "contrast",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelectorAll('#thread-list button.thread').length === 3`),
		until(contrast+`(getComputedStyle(document.querySelector('#thread-search')).borderTopColor, "rgb(255, 255, 255)") >= 3`),
		until(contrast+`(getComputedStyle(document.querySelector('#refresh')).borderTopColor, "rgb(255, 255, 255)") >= 3`),
		until(`(document.querySelector('#thread-search').focus(), document.activeElement.id === "thread-search")`),
		until(contrast+`(getComputedStyle(document.querySelector('#thread-search')).outlineColor, "rgb(255, 255, 255)") >= 3`),
		until(contrast+`(getComputedStyle(document.querySelector('#thread-search')).outlineColor, "rgb(230, 238, 255)") >= 3`),
	)
	steps(t, ctx, "the thread list is one Tab stop, walked with the arrows",
		until(`[...document.querySelectorAll('#thread-list button.thread')].filter((b) => b.tabIndex === 0).length === 1`),
		until(`(document.querySelector('#thread-list button.thread[tabindex="0"]').focus(), true)`),
		chromedp.KeyEvent(kb.ArrowDown),
		until(`document.activeElement === document.querySelectorAll('#thread-list button.thread')[1]`),
		until(`[...document.querySelectorAll('#thread-list button.thread')].filter((b) => b.tabIndex === 0).length === 1 && document.activeElement.tabIndex === 0`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="ship"][aria-selected="true"]`)),
		until(`document.querySelector('#thread-title').textContent === document.activeElement.dataset.thread`),
	)
	steps(t, ctx, "the graph's nodes are buttons",
		until(`document.querySelector('#graph svg').getAttribute('role') === "group"`),
		until(`document.querySelector('#graph g.node[data-node="pack"]').getAttribute('tabindex') === "0" && document.querySelector('#graph g.node[data-node="pack"]').getAttribute('role') === "button"`),
		until(`(document.querySelector('#graph g.node[data-node="pack"]').focus(), document.activeElement.dataset.node === "pack")`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="pack"][aria-selected="true"]`)),
		until(`document.activeElement?.dataset?.node === "pack"`),
		chromedp.Click(chromedp.CSS(`#graph g.node[data-node="ship"] rect`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li[data-nodes="ship"][aria-selected="true"]`)),
	)
	after := apiJSON[[]map[string]any](t, "POST", base+"/threads/t2/history", `{"limit": 100}`)
	assert.Len(t, after, before, "walking the page writes nothing")
}
