package studio_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/server"
	storememory "github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/studio"
)

// The Assistants, Store and Crons views show what the API holds: each
// assistant's graph and config, the store's namespaces, the items of
// one and a filtered search, each cron's schedule and payload; reading
// them changes nothing the API holds.
func TestTheAssistantsStoreAndCronsViewsShowWhatTheAPIHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	items, err := storememory.New()
	require.NoError(t, err)
	bg := context.Background()
	require.NoError(t, items.Put(bg, []string{"users", "alice"}, "prefs", map[string]any{"plan": "free", "theme": "dark"}))
	require.NoError(t, items.Put(bg, []string{"users", "alice"}, "memo", map[string]any{"text": "likes tea"}))
	require.NoError(t, items.Put(bg, []string{"users", "bob"}, "prefs", map[string]any{"plan": "pro", "theme": "light"}))
	srv, err := server.New([]server.Graph{server.Register("orders", packAndShip(t, nil)), server.Register("chores", chores(t))},
		server.WithStore(items), server.WithCronTicks(make(chan time.Time))) // the crons never fire
	require.NoError(t, err)
	web := httptest.NewServer(studio.Beside(srv))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})
	base := web.URL
	cron := apiJSON[map[string]any](t, "POST", base+"/runs/crons",
		`{"assistant_id": "orders", "schedule": "0 9 * * 1", "input": {"item": "weekly lamp"}, "metadata": {"owner": "ops"}}`)
	cronID := cron["cron_id"].(string)

	assistants := apiJSON[[]map[string]any](t, "POST", base+"/assistants/search", `{"limit": 100}`)
	steps(t, ctx, "the assistants view lists every assistant with its graph and config",
		chromedp.Navigate(base+"/studio/"),
		until(`document.body.dataset.ready === "true"`),
		chromedp.Click(chromedp.CSS(`#show-assistants`)),
		until(`document.querySelector('main.layout').hidden && !document.querySelector('#view-assistants').hidden`),
		until(`document.querySelector('#show-assistants').getAttribute('aria-pressed') === "true"`),
		until(fmt.Sprintf(`document.querySelector('#assistants-list').dataset.count === "%d"`, len(assistants))),
		textContains(`#assistants-list li[data-graph="orders"]`, "version"),
		textContains(`#assistants-list li[data-graph="chores"] .config`, `"configurable"`),
	)
	for _, a := range assistants {
		steps(t, ctx, "assistant "+a["assistant_id"].(string),
			until(fmt.Sprintf(`document.querySelector('#assistants-list li[data-assistant=%q]') !== null`, a["assistant_id"])))
	}

	steps(t, ctx, "the store view lists the namespaces and the items of one",
		chromedp.Click(chromedp.CSS(`#show-store`)),
		until(`!document.querySelector('#view-store').hidden && document.querySelector('#view-assistants').hidden`),
		until(`document.querySelector('#view-store').dataset.served === "true"`),
		until(`[...document.querySelectorAll('#store-namespaces button')].map((b) => b.dataset.namespace).sort().join() === "users.alice,users.bob"`),
		until(`document.querySelector('#store-items').dataset.count === "3"`), // every item at first
		chromedp.Click(chromedp.CSS(`#store-namespaces button[data-namespace="users.alice"]`)),
		until(`document.querySelector('#store-namespaces button[data-namespace="users.alice"]').getAttribute('aria-current') === "true"`),
		until(`document.querySelector('#store-items').dataset.count === "2"`),
		until(`[...document.querySelectorAll('#store-items li')].every((li) => li.dataset.namespace === "users.alice")`),
		textContains(`#store-items li[data-key="memo"] .value`, "likes tea"),
		textContains("#store-count", "2 items under users.alice"),
	)
	steps(t, ctx, "a filter that is not JSON is refused; a filtered search finds the one item",
		chromedp.SetValue(chromedp.CSS(`#store-prefix`), "users"),
		chromedp.SetValue(chromedp.CSS(`#store-filter`), `{"plan":`),
		chromedp.Click(chromedp.CSS(`#store-search-submit`)),
		textContains("#message", "The filter is not valid JSON"),
		until(`document.querySelector('#store-items').dataset.count === "2"`),
		chromedp.SetValue(chromedp.CSS(`#store-filter`), `{"plan": "pro"}`),
		chromedp.Click(chromedp.CSS(`#store-search-submit`)),
		until(`document.querySelector('#store-items').dataset.count === "1"`),
		until(`document.querySelector('#store-items li').dataset.namespace === "users.bob" && document.querySelector('#store-items li').dataset.key === "prefs"`),
		textContains(`#store-items li .value`, `"light"`),
		until(`document.querySelector('#message').hidden`),
	)
	found := apiJSON[map[string]any](t, "POST", base+"/store/items/search", `{"namespace_prefix": ["users"], "filter": {"plan": "pro"}}`)
	require.Len(t, found["items"], 1, "the API's answer to the page's search")

	steps(t, ctx, "the crons view shows the cron's schedule, assistant and payload",
		chromedp.Click(chromedp.CSS(`#show-crons`)),
		until(`!document.querySelector('#view-crons').hidden && document.querySelector('#view-store').hidden`),
		until(`document.querySelector('#crons-list').dataset.count === "1"`),
		until(fmt.Sprintf(`document.querySelector('#crons-list li[data-cron=%q]') !== null`, cronID)),
		textContains(`#crons-list li`, "0 9 * * 1"),
		textContains(`#crons-list li`, "a new thread each run"),
		textContains(`#crons-list li .payload`, "weekly lamp"),
		chromedp.Click(chromedp.CSS(`#show-threads`)),
		until(`!document.querySelector('main.layout').hidden && document.querySelector('#view-crons').hidden`),
	)

	// Reading changed nothing.
	crons := apiJSON[[]map[string]any](t, "POST", base+"/runs/crons/search", `{}`)
	require.Len(t, crons, 1)
	assert.Equal(t, cronID, crons[0]["cron_id"])
	all := apiJSON[map[string]any](t, "POST", base+"/store/items/search", `{"namespace_prefix": ["users"]}`)
	assert.Len(t, all["items"], 3)
	assert.Empty(t, apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`), "no thread was made")
}

// A server without a long-term store: the store view says so, and asks
// nothing of the store's endpoints (they are 404 there).
func TestTheStoreViewSaysWhenTheServerHasNoStore(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t) // fails on a console error, such as a 404 of /store/namespaces
	base := serve(t, nil, server.Register("orders", packAndShip(t, nil)))
	steps(t, ctx, "the store view of a server without one",
		chromedp.Navigate(base+"/studio/"),
		until(`document.body.dataset.ready === "true"`),
		chromedp.Click(chromedp.CSS(`#show-store`)),
		until(`document.querySelector('#view-store').dataset.served === "false"`),
		textContains("#store-none", "serves no long-term store"),
		until(`document.querySelector('#store-body').hidden`),
	)
	info := apiJSON[map[string]any](t, "GET", base+"/info", "")
	assert.Equal(t, false, info["flags"].(map[string]any)["store"])
}
