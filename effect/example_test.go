package effect_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// sendTool sends an e-mail; its first call times out after the mail
// server took the message.
type sendTool struct{ sent, calls int }

func (s *sendTool) Name() string        { return "send_email" }
func (s *sendTool) Description() string { return "sends an e-mail" }
func (s *sendTool) Call(ctx context.Context, input string) (string, error) {
	s.calls++
	s.sent++
	if s.calls == 1 {
		return "", errors.New("timeout waiting for the mail server")
	}
	return "sent", nil
}

// A side-effecting tool wrapped in the ledger: after a failed call, the
// next run of the task finds the call in doubt and asks a person instead
// of sending the e-mail again.
func ExampleWrap() {
	mail := &sendTool{}
	send := effect.Wrap(mail)
	node := func(ctx context.Context, s payState) (state.Update[payState], error) {
		out, err := send.Call(ctx, "to: ana@example.com")
		if err != nil {
			return state.Update[payState]{}, err
		}
		return state.Writes(resultField.Set(out)), nil
	}
	c, _ := graph.New(schema).AddNode("notify", node).AddEdge(graph.Start, "notify").
		Compile(graph.WithCheckpointer(memory.New()))
	ctx, thread := context.Background(), graph.WithThread("t1")

	_, err := c.Invoke(ctx, input, thread)
	fmt.Println("first run:", err != nil)

	_, err = c.Invoke(ctx, state.Update[payState]{}, thread)
	var ie *graph.InterruptError
	if errors.As(err, &ie) {
		doubt, _ := graph.Payload[effect.InDoubt](ie.Interrupts[0])
		fmt.Println("in doubt:", doubt.Call.Tool, doubt.Call.Input)
	}

	out, _ := c.Invoke(ctx, state.Update[payState]{}, thread, graph.Resume(effect.Decision{Action: effect.Confirm, Result: "sent (confirmed)"}))
	fmt.Println(out.Result, "- e-mails sent:", mail.sent)
	// Output:
	// first run: true
	// in doubt: send_email to: ana@example.com
	// sent (confirmed) - e-mails sent: 1
}
