package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// ErrCallLimit is the error (wrapped in a *LimitError naming the limit) of
// a call that CallLimit refused.
var ErrCallLimit = errors.New("agent: call limit reached")

// LimitError says which bound of CallLimit stopped the agent.
type LimitError struct {
	// Limit names the bound: "RunModelCalls", "ThreadModelCalls",
	// "RunToolCalls" or "ThreadToolCalls".
	Limit string
	// Max is the bound; Calls the calls there would have been.
	Max, Calls int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: CallLimit.%s is %d and this call would make %d", ErrCallLimit, e.Limit, e.Max, e.Calls)
}

// Unwrap returns ErrCallLimit.
func (e *LimitError) Unwrap() error { return ErrCallLimit }

// CallLimit bounds the agent's model and tool calls, per run and per
// thread (LangChain's modelCallLimitMiddleware and
// toolCallLimitMiddleware). A run is the agent's work on one input: the
// calls since the last human message, read from the state, so the bound
// holds across interrupts, resumes and processes; a thread's calls are
// the State.ModelCalls and State.ToolCalls sums (Keys.ModelCalls and
// Keys.ToolCalls in Build). A zero bound does not bound.
//
// A model call over a model bound is not made; a model reply whose tool
// calls would go over a tool bound is not kept. Either way the node fails
// with a *LimitError (errors.Is ErrCallLimit) naming the bound, so the run
// stops with it, visible in the stream and, as the task's error, in
// History. WithMaxModelCalls, by contrast, ends a run quietly with a
// message.
type CallLimit struct {
	Base
	RunModelCalls, ThreadModelCalls int
	RunToolCalls, ThreadToolCalls   int
}

// WrapModel refuses a call over a model bound, and a reply over a tool
// bound.
func (l CallLimit) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	if err := over("RunModelCalls", l.RunModelCalls, call.RunModelCalls+1); err != nil {
		return nil, err
	}
	if err := over("ThreadModelCalls", l.ThreadModelCalls, call.ThreadModelCalls+1); err != nil {
		return nil, err
	}
	resp, err := next(ctx, call)
	if err != nil || resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return resp, err
	}
	n := len(resp.Choices[0].ToolCalls)
	if n == 0 {
		return resp, nil
	}
	if err := over("RunToolCalls", l.RunToolCalls, call.RunToolCalls+n); err != nil {
		return nil, err
	}
	if err := over("ThreadToolCalls", l.ThreadToolCalls, call.ThreadToolCalls+n); err != nil {
		return nil, err
	}
	return resp, nil
}

func over(name string, bound, calls int) error {
	if bound > 0 && calls > bound {
		return &LimitError{Limit: name, Max: bound, Calls: calls}
	}
	return nil
}
