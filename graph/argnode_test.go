package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// overall is the state of LangGraph's map-reduce guide: subjects in,
// jokes out; a joke's subject is the mapper's own argument, not a field.
type overall struct {
	Subjects []string
	Jokes    []string
}

type jokeArg struct {
	Subject string `json:"subject"`
}

var (
	subjectsField = state.Value("subjects", func(s *overall) *[]string { return &s.Subjects })
	jokesField    = state.Append("jokes", func(s *overall) *[]string { return &s.Jokes })
	overallSc     = state.NewSchema(subjectsField, jokesField)
)

// jokesApp fans out one generate_joke per subject, each with its own
// jokeArg (LangGraph's Send("generate_joke", {"subject": s})); ask makes
// the mapper for "dogs" wait for an answer.
func jokesApp(t *testing.T, ask bool, opts ...graph.CompileOption) *graph.Compiled[overall] {
	t.Helper()
	g := graph.New(overallSc).
		AddNode("start", func(ctx context.Context, s overall) (state.Update[overall], error) {
			return state.Update[overall]{}, nil
		})
	graph.AddArgNode(g, "generate_joke", func(ctx context.Context, a jokeArg) (state.Update[overall], error) {
		joke := "Joke about " + a.Subject
		if ask && a.Subject == "dogs" {
			v, err := graph.Interrupt[string](ctx, "which dog?")
			if err != nil {
				return state.Update[overall]{}, err
			}
			joke += " (" + v + ")"
		}
		return state.Writes(jokesField.Set([]string{joke})), nil
	})
	g.AddEdge(graph.Start, "start").
		AddConditionalEdges("start", graph.FanOut(func(ctx context.Context, s overall) ([]graph.Send[overall], error) {
			var out []graph.Send[overall]
			for _, subj := range s.Subjects {
				out = append(out, graph.SendArg[overall]("generate_joke", jokeArg{Subject: subj}))
			}
			return out, nil
		}), "generate_joke")
	c, err := g.Compile(opts...)
	require.NoError(t, err)
	return c
}

// Mirrors the map-reduce of LangGraph's Send guide: each mapper receives
// its own argument, the results are applied in Send order.
func TestSendArgGivesANodeItsOwnArgument(t *testing.T) {
	t.Parallel()
	out, err := jokesApp(t, false).Invoke(t.Context(), state.Writes(subjectsField.Set([]string{"lions", "elephants", "penguins"})))
	require.NoError(t, err)
	require.Equal(t, []string{"Joke about lions", "Joke about elephants", "Joke about penguins"}, out.Jokes)
}

// The argument is stored with the schedule: after an interrupt in one
// mapper, the resume decodes it back into a jokeArg, runs only that
// mapper again, and the thread's pending Sends show their arguments.
func TestSendArgSurvivesAnInterruptAndResume(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	app := jokesApp(t, true, graph.WithCheckpointer(memory.New()))
	th := graph.WithThread("t")
	_, err := app.Invoke(ctx, state.Writes(subjectsField.Set([]string{"cats", "dogs"})), th)
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	snap, err := app.State(ctx, th)
	require.NoError(t, err)
	require.Equal(t, []string{"generate_joke"}, snap.Next, "the cats mapper finished")
	require.Equal(t, []string{"Joke about cats"}, snap.Values.Jokes)
	out, err := app.Invoke(ctx, state.Update[overall]{}, th, graph.Resume("a poodle"))
	require.NoError(t, err)
	require.Equal(t, []string{"Joke about cats", "Joke about dogs (a poodle)"}, out.Jokes)
}

// A Send must fit its target: SendArg only to an arg node of its type, a
// plain Send only to a node that takes the state; an arg node reached by
// an edge has no argument.
func TestSendArgMustFitItsNode(t *testing.T) {
	t.Parallel()
	mapper := func(ctx context.Context, a jokeArg) (state.Update[overall], error) {
		return state.Writes(jokesField.Set([]string{a.Subject})), nil
	}
	plain := func(ctx context.Context, s overall) (state.Update[overall], error) {
		return state.Update[overall]{}, nil
	}
	for _, tc := range []struct {
		name string
		send graph.Send[overall]
		want string
	}{
		{"plain send to an arg node", graph.SendTo("mapper", overall{}), `a Send to node "mapper" carries the state, but the node takes a graph_test.jokeArg (send it with graph.SendArg)`},
		{"arg send to a state node", graph.SendArg[overall]("plain", jokeArg{}), `graph.SendArg to node "plain", which takes the state`},
		{"wrong argument type", graph.SendArg[overall]("mapper", "cats"), `graph.SendArg to node "mapper" carries a string, but the node takes a graph_test.jokeArg`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := graph.New(overallSc).AddNode("start", func(ctx context.Context, s overall) (state.Update[overall], error) {
				return state.Update[overall]{Sends: []graph.Send[overall]{tc.send}}, nil
			}, graph.WithDestinations("mapper", "plain")).AddNode("plain", plain)
			graph.AddArgNode(g, "mapper", mapper)
			c, err := g.AddEdge(graph.Start, "start").Compile()
			require.NoError(t, err)
			_, err = c.Invoke(t.Context(), state.Update[overall]{})
			var re *graph.RouteError
			require.ErrorAs(t, err, &re)
			require.ErrorIs(t, err, graph.ErrInvalidRoute)
			require.ErrorContains(t, err, tc.want)
		})
	}
	g := graph.New(overallSc)
	graph.AddArgNode(g, "mapper", mapper)
	c, err := g.AddEdge(graph.Start, "mapper").Compile()
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Update[overall]{})
	require.ErrorContains(t, err, `node "mapper" takes a graph_test.jokeArg from graph.SendArg: it ran without one`)
}
