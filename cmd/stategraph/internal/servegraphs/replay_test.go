package servegraphs_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/server"
)

// The plan-and-execute agent served with Recorded replays offline with
// no divergence; without Recorded its first tool call is missing.
func TestTheServedPlanAndExecuteAgentReplays(t *testing.T) {
	t.Parallel()
	for _, record := range []bool{true, false} {
		saver := memory.New()
		var opts []servegraphs.Option
		if record {
			opts = append(opts, servegraphs.Recorded())
		}
		graphs, err := servegraphs.Graphs(saver, opts...)
		require.NoError(t, err)
		var pe server.Graph
		for _, g := range graphs {
			if g.ID() == "planexecute" {
				pe = g
			}
		}
		require.NotNil(t, pe)
		in, err := json.Marshal(servegraphs.DeliveryInput())
		require.NoError(t, err)
		for _, err := range pe.Run(t.Context(), server.RunInput{Thread: "order", Input: in}) {
			require.NoError(t, err)
		}
		divs, err := servegraphs.Replay(t.Context(), saver, "planexecute", "order")
		require.NoError(t, err)
		if record {
			require.Empty(t, divs)
			continue
		}
		require.NotEmpty(t, divs)
		require.Equal(t, replay.MissingCall, divs[0].Kind, "%v", divs[0])
	}
	_, err := servegraphs.Replay(t.Context(), memory.New(), "essay", "order")
	require.ErrorContains(t, err, `no graph "essay" to replay`)
}
