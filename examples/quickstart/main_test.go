package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestQuickstart(t *testing.T) {
	t.Parallel()
	app, err := build()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), state.Writes(question.Set("q")))
	require.NoError(t, err)
	require.Equal(t, []string{"latency: ★★★★", "cost: ★", "durability: ★★★"}, out.Notes)
	require.Equal(t, 3, out.Drafts)
	require.Equal(t, "q — draft 3 from 3 notes", out.Text)
	require.Equal(t, "graph TD;\n\t__start__ --> plan;\n\tplan -.-> research;\n\tresearch --> write;\n\twrite -.-> __end__;\n\twrite -.-> write;\n", app.Mermaid())
}

// What the program prints says what each write is: drafts += 1 is the
// Sum's increment, the total is in the final state, and a node that only
// routes wrote nothing.
func TestQuickstartOutput(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	require.Contains(t, got, "step 1  plan     wrote nothing\n")
	require.Contains(t, got, "step 2  research wrote notes += [cost: ★]\n")
	require.Contains(t, got, `step 3  write    wrote text = "Which runtime should we pick? — draft 1 from 3 notes", drafts += 1`+"\n")
	require.Equal(t, 3, strings.Count(got, "drafts += 1"))
	require.NotContains(t, got, "drafts=1")
	require.Contains(t, got, `final state: 3 notes, drafts = 3, text = "Which runtime should we pick? — draft 3 from 3 notes"`)
	require.True(t, strings.HasSuffix(got, "\twrite -.-> write;\n"), "the graph as Mermaid comes last")
}
