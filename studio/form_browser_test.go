package studio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/invopop/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// level is a string of two values: its JSON schema is an enum.
type level string

// JSONSchema gives the field's schema an enum (invopop/jsonschema reads it).
func (level) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: []any{"low", "high"}}
}

// owner is a nested object of the input: all three fields required.
type owner struct {
	Name    string   `json:"name"`
	Team    string   `json:"team"`
	Aliases []string `json:"aliases"`
}

type chore struct {
	Title    string
	Count    int
	Urgent   bool
	Priority level
	Tags     []string
	Owner    owner
	Helpers  []owner
	Done     string
}

// chores is a graph whose input schema has a field of each kind the run
// form knows: a nested object (owner) whose fields are required, and a
// list of objects it writes as JSON (helpers).
func chores(t *testing.T) *graph.Compiled[chore] {
	t.Helper()
	title := state.Value("title", func(c *chore) *string { return &c.Title })
	count := state.Value("count", func(c *chore) *int { return &c.Count })
	urgent := state.Value("urgent", func(c *chore) *bool { return &c.Urgent })
	priority := state.Value("priority", func(c *chore) *level { return &c.Priority })
	tags := state.Value("tags", func(c *chore) *[]string { return &c.Tags })
	who := state.Value("owner", func(c *chore) *owner { return &c.Owner })
	helpers := state.Value("helpers", func(c *chore) *[]owner { return &c.Helpers })
	done := state.Value("done", func(c *chore) *string { return &c.Done })
	app, err := graph.New(state.NewSchema(title, count, urgent, priority, tags, who, helpers, done)).
		AddNode("plan", func(ctx context.Context, c chore) (state.Update[chore], error) {
			return state.Writes(done.Set(fmt.Sprintf("%s x%d for %s", c.Title, c.Count, c.Owner.Name))), nil
		}).
		AddEdge(graph.Start, "plan").
		AddEdge("plan", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return app
}

// The run box is a form of the graph's input schema: a field for each
// string, number, boolean, enum and list of strings, a JSON box for a
// nested field; it switches to JSON and back, refuses what does not
// parse, and a run from the form writes what the same JSON writes.
func TestTheRunFormIsGeneratedFromTheInputSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx := chromium(t)
	base := serve(t, nil, server.Register("chores", chores(t)))
	kind := func(field, tag, k string) chromedp.Action[chromedp.Void] {
		return until(fmt.Sprintf(`document.querySelector('#run-field-%s')?.tagName === %q && document.querySelector('#run-field-%s').dataset.kind === %q && document.querySelector('label[for="run-field-%s"]') !== null`, field, tag, field, k, field))
	}
	steps(t, ctx, "the form has a field of the right kind for each property",
		chromedp.Navigate(base+"/studio/"),
		until(`document.querySelector('#new-run-form').dataset.mode === "form"`),
		until(`!document.querySelector('#run-form-fields').hidden && document.querySelector('#run-json').hidden`),
		kind("title", "INPUT", "string"),
		kind("count", "INPUT", "integer"),
		kind("urgent", "SELECT", "boolean"),
		kind("priority", "SELECT", "enum"),
		kind("tags", "TEXTAREA", "strings"),
		// The nested object is a group of its own fields, each required.
		until(`document.querySelector('#run-field-owner').tagName === "FIELDSET" && document.querySelector('#run-field-owner legend').textContent === "owner"`),
		kind("owner__name", "INPUT", "string"),
		kind("owner__team", "INPUT", "string"),
		kind("owner__aliases", "TEXTAREA", "strings"),
		until(`document.querySelector('label[for="run-field-owner__name"]').textContent === "name (required)" && document.querySelector('#run-field-owner__name').getAttribute('aria-required') === "true"`),
		until(`document.querySelector('label[for="run-field-title"]').textContent === "title"`),
		kind("helpers", "TEXTAREA", "json"),
		// The graph has no example: a list's empty value is [], never null.
		until(`document.querySelector('#run-field-helpers').value === "[]"`),
		until(`[...document.querySelectorAll('#run-field-priority option')].map((o) => o.value).join() === ",low,high"`),
		until(`document.querySelector('#run-field-count').type === "number"`),
		until(`(document.querySelector('#run-field-owner').scrollIntoView({block: "center"}), true)`),
		shot(t, "studio-run-form.png"),
	)
	steps(t, ctx, "a field of JSON that does not parse is refused and starts nothing",
		chromedp.SetValue(chromedp.CSS(`#run-field-title`), "water plants"),
		chromedp.SetValue(chromedp.CSS(`#run-field-helpers`), `[{"name":`),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		textContains("#message", "Field helpers: not valid JSON"),
		until(`document.querySelector('#run-field-helpers').getAttribute('aria-invalid') === "true"`),
		until(`document.querySelector('#run-bar').hidden`),
	)
	steps(t, ctx, "a nested object written without a required field is refused and starts nothing",
		until(`(document.querySelector('#run-field-helpers').value = "", true)`),
		chromedp.SetValue(chromedp.CSS(`#run-field-owner__team`), "home"),
		chromedp.Click(chromedp.CSS(`#run-new`)),
		textContains("#message", "Field owner.name is required"),
		until(`document.querySelector('#run-field-owner__name').getAttribute('aria-invalid') === "true"`),
		until(`document.querySelector('#run-bar').hidden`),
	)
	threads := apiJSON[[]map[string]any](t, "POST", base+"/threads/search", `{}`)
	require.Empty(t, threads, "the refused input created a thread")

	// aliases is left empty: the nested list is written as [], not null.
	want := map[string]any{"title": "water plants", "count": 3.0, "urgent": true, "priority": "high",
		"tags": []any{"garden", "weekly"}, "owner": map[string]any{"name": "Ann", "team": "home", "aliases": []any{}}}
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	var typed string
	steps(t, ctx, "the form's fields become the JSON box's object, and back",
		chromedp.SetValue(chromedp.CSS(`#run-field-count`), "3"),
		chromedp.SetValue(chromedp.CSS(`#run-field-urgent`), "true"),
		chromedp.SetValue(chromedp.CSS(`#run-field-priority`), "high"),
		chromedp.SetValue(chromedp.CSS(`#run-field-tags`), "garden\n weekly \n"),
		chromedp.SetValue(chromedp.CSS(`#run-field-owner__name`), "Ann"),
		chromedp.Click(chromedp.CSS(`#run-mode-json`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "json" && !document.querySelector('#run-json').hidden`),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			var err error
			typed, err = chromedp.Evaluate[string](`document.querySelector('#run-input').value`)(ctx, tg)
			return chromedp.Void{}, err
		},
	)
	assert.JSONEq(t, string(wantJSON), typed, "the JSON box holds what the form gives")
	steps(t, ctx, "JSON with a field the schema lacks stays JSON; the form reads valid JSON back",
		chromedp.SetValue(chromedp.CSS(`#run-input`), `{"title": "x", "nope": 1}`),
		chromedp.Click(chromedp.CSS(`#run-mode-form`)),
		textContains("#message", "nope"),
		until(`document.querySelector('#new-run-form').dataset.mode === "json" && document.querySelector('#run-mode-json').checked`),
		// Lists that are null (as Go writes a nil slice) show empty, not "null".
		chromedp.SetValue(chromedp.CSS(`#run-input`), `{"owner": {"name": "Bo", "team": "x", "aliases": null}, "helpers": null}`),
		chromedp.Click(chromedp.CSS(`#run-mode-form`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "form"`),
		until(`document.querySelector('#run-field-owner__aliases').value === "" && document.querySelector('#run-field-helpers').value === "[]" && document.querySelector('#run-field-owner__name').value === "Bo"`),
		chromedp.Click(chromedp.CSS(`#run-mode-json`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "json"`),
		chromedp.SetValue(chromedp.CSS(`#run-input`), typed),
		chromedp.Click(chromedp.CSS(`#run-mode-form`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "form"`),
		until(`document.querySelector('#run-field-tags').value === "garden\nweekly" && document.querySelector('#run-field-priority').value === "high" && document.querySelector('#run-field-urgent').value === "true" && document.querySelector('#run-field-owner__team').value === "home"`),
	)
	formThread := runToSuccess(t, ctx, "a run from the form")
	steps(t, ctx, "the same object typed as JSON",
		chromedp.Click(chromedp.CSS(`#run-mode-json`)),
		until(`document.querySelector('#new-run-form').dataset.mode === "json"`),
		chromedp.SetValue(chromedp.CSS(`#run-input`), string(wantJSON)),
	)
	jsonThread := runToSuccess(t, ctx, "a run from the JSON box")
	require.NotEqual(t, formThread, jsonThread)

	fromForm := apiJSON[map[string]any](t, "GET", base+"/threads/"+formThread+"/state", "")
	fromJSON := apiJSON[map[string]any](t, "GET", base+"/threads/"+jsonThread+"/state", "")
	values := fromForm["values"].(map[string]any)
	for k, v := range want {
		assert.Equal(t, v, values[k], "field %s of the form's run", k)
	}
	assert.Equal(t, "water plants x3 for Ann", values["done"])
	assert.Equal(t, fromJSON["values"], fromForm["values"], "the form's run wrote what the JSON run wrote")
}

// runToSuccess starts a run of the chores graph on a new thread from the
// run box, waits for its success, and returns the thread's id.
func runToSuccess(t *testing.T, ctx context.Context, what string) string {
	t.Helper()
	var before string
	steps(t, ctx, what+": before",
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			var err error
			before, err = chromedp.Evaluate[string](`document.querySelector('#thread-title').textContent`)(ctx, tg)
			return chromedp.Void{}, err
		})
	var tid string
	steps(t, ctx, what,
		chromedp.Click(chromedp.CSS(`#run-new`)),
		// The new thread's timeline starts empty: its plan row is this run's.
		until(fmt.Sprintf(`document.querySelector('#thread-title').textContent !== %q && document.querySelector('#timeline').dataset.thread === document.querySelector('#thread-title').textContent
			&& document.querySelector('#timeline li[data-nodes="plan"]') !== null && document.querySelector('#run-bar').dataset.status === "success"`, before)),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			var err error
			tid, err = chromedp.Evaluate[string](`document.querySelector('#thread-title').textContent`)(ctx, tg)
			return chromedp.Void{}, err
		})
	return tid
}
