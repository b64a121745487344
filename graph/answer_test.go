package graph_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

type edit struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// approval is the answer a review node asks for.
type approval struct {
	Approved bool    `json:"approved"`
	Note     string  `json:"note,omitempty"`
	Edits    []edit  `json:"edits,omitempty"`
	Score    *int    `json:"score"`
	Weight   float64 `json:"weight,omitempty"`
}

// reviewApp stops in "review" for an approval, then writes what it got.
func reviewApp(t *testing.T, opts ...graph.CompileOption) *graph.Compiled[counter] {
	t.Helper()
	g := graph.New(schema).
		AddNode("review", func(ctx context.Context, s counter) (state.Update[counter], error) {
			a, err := graph.Interrupt[approval](ctx, "approve the draft?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			out, _ := json.Marshal(a)
			return state.Writes(lastField.Set(string(out))), nil
		}).
		AddEdge(graph.Start, "review")
	return mustCompile(t, g, append([]graph.CompileOption{graph.WithCheckpointer(memory.New())}, opts...)...)
}

// An Interrupt[T] carries the JSON Schema of T, in the run's error, in
// the thread's state (after the round trip through the checkpoint) and
// in its task's interrupts.
func TestInterruptCarriesItsAnswersJSONSchema(t *testing.T) {
	t.Parallel()
	app := reviewApp(t)
	_, err := app.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	want := `{"type":"object","required":["approved"],"properties":{
		"approved":{"type":"boolean"},
		"note":{"type":"string"},
		"edits":{"type":"array","items":{"type":"object","required":["line","text"],"properties":{"line":{"type":"integer"},"text":{"type":"string"}}}},
		"score":{"type":["integer","null"]},
		"weight":{"type":"number"}}}`
	require.JSONEq(t, want, string(ie.Interrupts[0].Schema))
	snap, err := app.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.JSONEq(t, want, string(snap.Interrupts[0].Schema))
	require.JSONEq(t, want, string(snap.Tasks[0].Interrupts[0].Schema))
	raw, err := json.Marshal(snap.Interrupts[0])
	require.NoError(t, err)
	require.Contains(t, string(raw), `"response_schema":{`)
}

// A resume value that does not fit the interrupt's answer type is refused
// before anything is stored, naming the interrupt, its node and the field;
// the thread is as it was, and a fitting answer then resumes it.
func TestResumeThatDoesNotFitTheAnswerIsRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer any
		strict bool
		want   string // "" when accepted
	}{
		{name: "wrong type", answer: map[string]any{"approved": "yes"}, want: `field "approved": want boolean, got string "yes"`},
		{name: "missing", answer: map[string]any{"note": "ok"}, want: `field "approved": missing`},
		{name: "nested", answer: map[string]any{"approved": true, "edits": []any{map[string]any{"line": 1, "text": "a"}, map[string]any{"line": "two", "text": "b"}}}, want: `field "edits[1].line": want integer, got string "two"`},
		{name: "fraction for an integer", answer: json.RawMessage(`{"approved":true,"score":1.5}`), want: `field "score": want integer or null, got number 1.5`},
		{name: "not an object", answer: "approved", want: `want object, got string "approved"`},
		{name: "a typed value", answer: approval{Approved: true, Note: "fine"}},
		{name: "null pointer and integer as number", answer: json.RawMessage(`{"approved":false,"score":null,"weight":2}`)},
		{name: "extra field", answer: map[string]any{"approved": true, "extra": 1}},
		{name: "extra field, strict", answer: map[string]any{"approved": true, "extra": 1}, strict: true, want: `field "extra": not a field of the answer (strict answers)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []graph.CompileOption
			if tc.strict {
				opts = append(opts, graph.WithStrictAnswers())
			}
			app := reviewApp(t, opts...)
			ctx := t.Context()
			_, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"))
			require.Error(t, err)
			before := history(t, app, "t")
			snap, err := app.State(ctx, graph.WithThread("t"))
			require.NoError(t, err)
			id := snap.Interrupts[0].ID

			for _, opt := range []graph.RunOption{graph.Resume(tc.answer), graph.ResumeByID(map[string]any{id: tc.answer})} {
				out, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), opt)
				if tc.want == "" {
					require.NoError(t, err)
					var got approval
					require.NoError(t, json.Unmarshal([]byte(out.Last), &got))
					return
				}
				require.ErrorIs(t, err, graph.ErrInvalidAnswer)
				require.ErrorContains(t, err, tc.want)
				require.ErrorContains(t, err, `interrupt "`+id+`" of node "review"`)
				after := history(t, app, "t")
				require.Len(t, after, len(before), "nothing stored")
				again, err := app.State(ctx, graph.WithThread("t"))
				require.NoError(t, err)
				require.Equal(t, snap.Interrupts, again.Interrupts)
				require.Equal(t, snap.Config, again.Config)
			}
			out, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.Resume(map[string]any{"approved": true}))
			require.NoError(t, err)
			require.JSONEq(t, `{"approved":true,"score":null}`, out.Last)
		})
	}
}

// An answer to an interrupt that is no longer pending is refused, strict
// or not: the id of one already answered, or a resume of a thread that
// has none.
func TestAnswerToAnInterruptNoLongerPendingIsRefused(t *testing.T) {
	t.Parallel()
	app := reviewApp(t, graph.WithStrictAnswers())
	ctx := t.Context()
	_, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"))
	require.Error(t, err)
	snap, err := app.State(ctx, graph.WithThread("t"))
	require.NoError(t, err)
	id := snap.Interrupts[0].ID
	_, err = app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.ResumeByID(map[string]any{id: map[string]any{"approved": true}}))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.ResumeByID(map[string]any{id: map[string]any{"approved": false}}))
	require.ErrorIs(t, err, graph.ErrNothingToResume)
	require.ErrorContains(t, err, id)
	_, err = app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.Resume(map[string]any{"approved": false}))
	require.ErrorIs(t, err, graph.ErrNothingToResume)
}

// An Interrupt whose answer type is an interface or json.RawMessage takes
// any answer and carries no schema; a scalar answer type gets a scalar
// schema.
func TestAnswerSchemaOfScalarAndOpenTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		ask    func(ctx context.Context) error
		schema string
	}{
		{"any", func(ctx context.Context) error { _, err := graph.Interrupt[any](ctx, "?"); return err }, ""},
		{"raw", func(ctx context.Context) error { _, err := graph.Interrupt[json.RawMessage](ctx, "?"); return err }, ""},
		{"string", func(ctx context.Context) error { _, err := graph.Interrupt[string](ctx, "?"); return err }, `{"type":"string"}`},
		{"map", func(ctx context.Context) error { _, err := graph.Interrupt[map[string]int](ctx, "?"); return err }, `{"type":"object","additionalProperties":{"type":"integer"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := graph.New(schema).AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
				return state.Update[counter]{}, tc.ask(ctx)
			}).AddEdge(graph.Start, "ask")
			app := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			_, err := app.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			var ie *graph.InterruptError
			require.ErrorAs(t, err, &ie)
			if tc.schema == "" {
				require.Nil(t, ie.Interrupts[0].Schema)
				return
			}
			require.JSONEq(t, tc.schema, string(ie.Interrupts[0].Schema))
		})
	}
}
