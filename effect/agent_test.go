package effect_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// payModel asks for one charge_card call, then answers with the tool's
// result.
type payModel struct{}

func (payModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	last := msgs[len(msgs)-1]
	if r, ok := last.Parts[0].(llms.ToolCallResponse); ok {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Done: " + r.Content}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
		ID: "call-1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "charge_card", Arguments: `{"__arg1":"10 EUR"}`},
	}}}}}, nil
}

func (m payModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// The prebuilt chat agent with a ledger tool: a run cancelled while the
// tool runs (as a crash would stop it) leaves the call in doubt; the
// resume asks a person instead of charging again.
func TestTheChatAgentAsksAboutAnInDoubtToolCall(t *testing.T) {
	t.Parallel()
	card := &cardTool{block: make(chan struct{})}
	a := agent.New[agent.NoResponse](payModel{}, []tools.Tool{effect.Wrap(card)})
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	card.keys = make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := app.Invoke(ctx, a.Input(chat.Human("pay my bill")), graph.WithThread("t"))
		done <- err
	}()
	<-card.keys // the call started, its start recorded
	cancel()
	close(card.block) // the charge goes through, but the run is stopped
	require.ErrorIs(t, <-done, context.Canceled)
	require.EqualValues(t, 1, card.calls.Load())

	resume := state.Update[agent.State[agent.NoResponse]]{}
	_, err = app.Invoke(t.Context(), resume, graph.WithThread("t"))
	require.Equal(t, "charge_card", inDoubtOf(t, err).Call.Tool)
	require.EqualValues(t, 1, card.calls.Load(), "not charged again")

	out, err := app.Invoke(t.Context(), resume, graph.WithThread("t"), graph.Resume(effect.Decision{Action: effect.Confirm, Result: "charged 10 EUR"}))
	require.NoError(t, err)
	require.Equal(t, "Done: charged 10 EUR", out.Messages[len(out.Messages)-1].Text())
	require.EqualValues(t, 1, card.calls.Load())
}
