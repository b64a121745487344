package agent_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/internal/faultsaver"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
)

type billArgs struct {
	Amount string `json:"amount"`
}

// The agent with toolnode.WithLedger, through langchaingo's OpenAI client:
// the payment tool (Mutates) charges, and the run dies before the ledger
// records the call's end. The tool node's default error handler would
// have made that failure a tool message the model answers by calling
// again; instead the run fails, and the resume asks a person about the
// call (by its tool_call_id) without charging again. Confirmed, the
// conversation continues with the confirmed result. The read-only tool is
// not in the ledger and runs as before.
func TestTheAgentsLedgerAsksAboutACallInDoubtThroughOpenAI(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "charged 10 EUR (confirmed)", Content: "Your bill is paid."},
		fakechat.Turn{Marker: "balance: 10 EUR", ToolCalls: []fakechat.ToolCall{{ID: "call_pay", Name: "pay_bill", Arguments: `{"amount":"10 EUR"}`}}},
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_look", Name: "balance", Arguments: `{}`}}},
	)
	saver := &faultsaver.Saver{Saver: chattest.Savers(t)["sqlite"]}
	var charges, looks atomic.Int32
	pay := tool.New("pay_bill", "pays the bill", func(ctx context.Context, a billArgs) (string, error) {
		charges.Add(1)
		if _, ok := effect.Key(ctx); !ok {
			return "", errors.New("no ledger key")
		}
		saver.Arm() // the effect took place; the end record fails
		return "charged " + a.Amount, nil
	})
	pay.Mutates = true
	look := tool.New("balance", "the balance due", func(context.Context, struct{}) (string, error) {
		looks.Add(1)
		return "balance: 10 EUR", nil
	})
	model := openAI(t, srv)
	a := agent.New[agent.NoResponse](model, []tools.Tool{pay, look}, agent.WithToolOptions(toolnode.WithLedger()))
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	thread := graph.WithThread("bill")

	_, err = app.Invoke(t.Context(), a.Input(chat.Human("pay my bill")), thread)
	require.ErrorIs(t, err, effect.ErrInDoubt, "the run fails: no tool message answers the call")
	require.ErrorContains(t, err, "the process died")
	require.EqualValues(t, 1, charges.Load())
	requests := len(srv.Requests())

	resume := state.Update[agent.State[agent.NoResponse]]{}
	_, err = app.Invoke(t.Context(), resume, thread)
	doubt := inDoubt(t, err)
	require.Equal(t, "pay_bill", doubt.Call.Tool)
	require.Equal(t, "call_pay", doubt.Call.CallID)
	require.JSONEq(t, `{"amount":"10 EUR"}`, doubt.Call.Input)
	require.EqualValues(t, 1, charges.Load(), "not charged again")
	require.Len(t, srv.Requests(), requests, "the model is not asked while the call is in doubt")

	out, err := app.Invoke(t.Context(), resume, thread, graph.Resume(effect.Decision{Action: effect.Confirm, Result: "charged 10 EUR (confirmed)"}))
	require.NoError(t, err)
	require.EqualValues(t, 1, charges.Load())
	require.EqualValues(t, 1, looks.Load())
	last := out.Messages[len(out.Messages)-1]
	require.Equal(t, "Your bill is paid.", last.Text())
	var answered bool
	for _, m := range out.Messages {
		if r, ok := m.ToolResponse(); ok && r.ToolCallID == "call_pay" {
			require.Equal(t, "charged 10 EUR (confirmed)", r.Content)
			answered = true
		}
	}
	require.True(t, answered, "the call is answered with the confirmed result")
}

// inDoubt returns the effect.InDoubt payload of err, an interrupt.
func inDoubt(t *testing.T, err error) effect.InDoubt {
	t.Helper()
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	p, err := graph.Payload[effect.InDoubt](ie.Interrupts[0])
	require.NoError(t, err)
	require.Equal(t, effect.InDoubtKind, p.Kind)
	return p
}
