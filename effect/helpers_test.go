package effect_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// payState is the state of the tests' graphs: the result of the payment
// tool, and what happened after it.
type payState struct {
	Result string
	After  string
}

var (
	resultField = state.Value("result", func(s *payState) *string { return &s.Result })
	afterField  = state.Value("after", func(s *payState) *string { return &s.After })
	schema      = state.NewSchema(resultField, afterField)
)

// cardTool is a side-effecting tool: each call counts, records the key
// it was given, and returns "charged <input>" (or fails while fail is
// set).
type cardTool struct {
	calls atomic.Int64
	keys  chan string // the keys of the calls, when not nil
	fail  atomic.Bool
	block chan struct{} // when not nil, a call waits for it to close
}

func (c *cardTool) Name() string        { return "charge_card" }
func (c *cardTool) Description() string { return "charges a card" }
func (c *cardTool) Call(ctx context.Context, input string) (string, error) {
	c.calls.Add(1)
	key, _ := effect.Key(ctx)
	if c.keys != nil {
		c.keys <- key
	}
	if c.block != nil {
		<-c.block
		if err := ctx.Err(); err != nil {
			return "", err // the charge went through; the answer is lost
		}
	}
	if c.fail.Load() {
		return "", errors.New("card network timeout")
	}
	return "charged " + input, nil
}

// payGraph is Start → pay: pay calls tool with "10 EUR" and then after.
func payGraph(t *testing.T, saver checkpoint.Saver, tool interface {
	Call(context.Context, string) (string, error)
}, after func(ctx context.Context) error, opts ...graph.NodeOption) *graph.Compiled[payState] {
	t.Helper()
	pay := func(ctx context.Context, s payState) (state.Update[payState], error) {
		out, err := tool.Call(ctx, "10 EUR")
		if err != nil {
			return state.Update[payState]{}, err
		}
		if after != nil {
			if err := after(ctx); err != nil {
				return state.Update[payState]{}, err
			}
		}
		return state.Writes(resultField.Set(out)), nil
	}
	var copts []graph.CompileOption
	if saver != nil {
		copts = append(copts, graph.WithCheckpointer(saver))
	}
	c, err := graph.New(schema).AddNode("pay", pay, opts...).AddEdge(graph.Start, "pay").Compile(copts...)
	require.NoError(t, err)
	return c
}

var input = state.Writes(afterField.Set(""))

// inDoubtOf returns the InDoubt payload of err, an interrupt.
func inDoubtOf(t *testing.T, err error) effect.InDoubt {
	t.Helper()
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	p, err := graph.Payload[effect.InDoubt](ie.Interrupts[0])
	require.NoError(t, err)
	return p
}
