package remote_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// TestRemoteInterruptsAreAnsweredInTurn: a remote run that asks two
// questions one after the other stops the caller twice; each answer goes
// to its own question, though the node runs again from its start each
// time and the caller's resume values accumulate.
func TestRemoteInterruptsAreAnsweredInTurn(t *testing.T) {
	t.Parallel()
	rs := newRemoteServer(t)
	app := callerGraph(t, rs.graph("quiz"), openSaver(t, dbPath(t)))
	ctx := context.Background()

	question := func(err error) any {
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Interrupts, 1)
		return ie.Interrupts[0].Value
	}
	_, err := app.Invoke(ctx, state.Writes(tripTopic.Set("nice")), graph.WithThread("t1"))
	require.Equal(t, map[string]any{"question": "first nice?"}, jsonValue(t, question(err)))

	_, err = app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"), graph.Resume("yes"))
	require.Equal(t, map[string]any{"question": "second nice?"}, jsonValue(t, question(err)))

	out, err := app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"), graph.Resume("no"))
	require.NoError(t, err)
	require.Equal(t, "drafted nice; first yes; second no", out.Summary)
	require.True(t, out.Done)
	require.Len(t, rs.runs(out.RemoteThread), 3, "the first run and one resume per answer")
	require.EqualValues(t, 1, rs.drafts.Load())

	// A later resume of the finished caller thread changes nothing.
	again, err := app.Invoke(ctx, state.Update[Trip]{}, graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, out, again)
	require.Len(t, rs.runs(out.RemoteThread), 3)
}

// jsonValue is v as JSON decodes it (a remote interrupt's payload is its
// JSON).
func jsonValue(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}
