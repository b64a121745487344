package main

import (
	"context"
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
