package agent_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// The model is asked for a token stream only when someone consumes the
// tokens: a Messages stream. Invoke streams nothing, so its
// calls are plain requests.
func TestModelIsAskedForAStreamOnlyWhenTokensAreConsumed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		modes  []graph.Mode // nil: Invoke
		stream bool
	}{
		{"Invoke", nil, false},
		{"Stream of values", []graph.Mode{graph.Values}, false},
		{"Stream of messages", []graph.Mode{graph.Messages}, true},
		{"Stream of custom events", []graph.Mode{graph.Custom}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakechat.NewTurns(t, fakechat.Turn{Content: "Hello there."})
			var ran atomic.Int32
			a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)})
			app, err := a.Graph.Compile()
			require.NoError(t, err)
			in := a.Input(chat.Human("hi"))
			if tc.modes == nil {
				_, err = app.Invoke(context.Background(), in)
				require.NoError(t, err)
			} else {
				for _, err := range app.Stream(context.Background(), in, graph.StreamModes(tc.modes...)) {
					require.NoError(t, err)
				}
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.stream, strings.Contains(reqs[0], `"stream":true`), reqs[0])
		})
	}
}
