package toolnode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// DefaultMaxParallel is how many calls a node runs at once unless
// WithMaxParallel says otherwise.
const DefaultMaxParallel = 4

// Option configures a tool node.
type Option func(*options)

type options struct {
	maxParallel int
	onError     func(call llms.ToolCall, err error) (string, error)
	around      CallHook
	ledger      bool
}

// CallHook wraps each call a node makes: it may refuse the call (return
// without calling run), bound it (a context with a deadline), time and
// record it, or judge its result. run calls the tool (a panic in it is
// already an error); what the hook returns is the call's result, an error
// going to the error handler like a tool's own. Hooks run concurrently, one
// per call, so a hook that keeps records must lock.
type CallHook func(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error)

// WithCallHook wraps every call (see CallHook); a call of a tool that does
// not exist is answered without it. CallIndex tells the hook which call of
// its AI message it wraps. Hooks given in several WithCallHook options
// all apply, in order: the first is the outermost.
func WithCallHook(h CallHook) Option {
	return func(o *options) {
		if h == nil {
			return
		}
		outer := o.around
		if outer == nil {
			o.around = h
			return
		}
		o.around = func(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
			return outer(ctx, call, func(ctx context.Context) (string, error) { return h(ctx, call, run) })
		}
	}
}

// WithMaxParallel bounds how many calls run at once (n < 1: one at a time).
func WithMaxParallel(n int) Option {
	return func(o *options) { o.maxParallel = max(n, 1) }
}

// WithErrorHandler sets what a failed call (an error, a panic, a tool that
// does not exist) becomes: the content of its tool message, or, when the
// handler returns an error, the node's failure. The default answers
// DefaultErrorMessage.
func WithErrorHandler(h func(call llms.ToolCall, err error) (string, error)) Option {
	return func(o *options) { o.onError = h }
}

// PropagateErrors makes a failed call fail the node (LangGraph's
// handle_tool_errors=False), with an error naming the call and the tool.
func PropagateErrors() Option {
	return WithErrorHandler(func(_ llms.ToolCall, err error) (string, error) { return "", err })
}

// WithLedger runs each call of a tool with side effects through the
// effect ledger (effect.Do), keyed by the task and by the call's id
// (tool_call_id): a crash, an error or an interrupt between a call's start
// and its end never runs it again blindly; the task's next run asks the
// tool's reconcile hook (the tool implements effect.Reconciler) or a
// person (an effect.in_doubt interrupt, answered with an effect.Decision).
// A tool has side effects when it has a SideEffects method (plan's
// SideEffecter: nodes/tool's Mutates, an MCP tool that is not readOnlyHint)
// that reports true; other tools run as before. A tool made with
// effect.Wrap is already a ledger tool and is not wrapped again. The graph
// must be compiled WithCheckpointer (see effect.Do).
func WithLedger() Option {
	return func(o *options) { o.ledger = true }
}

// ErrUnknownTool is the error (wrapped, naming the tool and listing the
// tools) of a call of a tool the node does not have: an error handler
// tells it from a tool's failure with errors.Is.
var ErrUnknownTool = errors.New("not a tool")

type indexKey struct{}

// CallIndex returns the position of the call whose CallHook got ctx among
// the calls run together — those of its AI message (0 for the first), or
// only itself (0) in a task of its own (Dispatch) — and false for a ctx
// that is not a hook's. Calls may share an id; their positions differ.
func CallIndex(ctx context.Context) (int, bool) {
	i, ok := ctx.Value(indexKey{}).(int)
	return i, ok
}

// DefaultErrorMessage is the tool message a failed call gets by default: the
// error, and a request to correct the call.
func DefaultErrorMessage(_ llms.ToolCall, err error) (string, error) {
	return fmt.Sprintf("Error: %v\nCorrect the call and try again.", err), nil
}

// New returns the node running the tool calls of the last message of
// messages (see the package documentation). A last message that is not an
// AI message fails the node; one without tool calls writes nothing. Sent
// one call by Dispatch (or ReviewNode), it runs that call alone.
func New[S any](messages *state.Key[S, []chat.Message], ts []tools.Tool, opts ...Option) graph.NodeFunc[S] {
	r := newRunner(ts, opts)
	return func(ctx context.Context, s S) (state.Update[S], error) {
		msgs := messages.Get(s)
		if t, ok := taskOf(msgs); ok {
			m, err := r.runTask(ctx, t)
			if err != nil {
				return state.Update[S]{}, err
			}
			return state.Writes(messages.Set([]chat.Message{m})), nil
		}
		out, err := r.run(ctx, msgs)
		if err != nil || len(out) == 0 {
			return state.Update[S]{}, err
		}
		return state.Writes(messages.Set(out)), nil
	}
}

// Run does what the node does, as a function, for code that runs tools
// inside a node of its own (a ReAct loop within a step): it returns the
// messages the node would write for the last of msgs — the tool messages,
// in call order.
func Run(ctx context.Context, msgs []chat.Message, ts []tools.Tool, opts ...Option) ([]chat.Message, error) {
	return newRunner(ts, opts).run(ctx, msgs)
}

type runner struct {
	opts  options
	tools map[string]tools.Tool
	names []string
}

func newRunner(ts []tools.Tool, opts []Option) *runner {
	o := options{maxParallel: DefaultMaxParallel, onError: DefaultErrorMessage}
	for _, opt := range opts {
		opt(&o)
	}
	byName := make(map[string]tools.Tool, len(ts))
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		byName[t.Name()] = t
		names = append(names, t.Name())
	}
	slices.Sort(names)
	return &runner{opts: o, tools: byName, names: names}
}

// run returns the messages the node writes for the last message of msgs.
func (r *runner) run(ctx context.Context, msgs []chat.Message) ([]chat.Message, error) {
	last, ok := chat.Last(msgs)
	if !ok {
		return nil, fmt.Errorf("toolnode: no messages")
	}
	if last.Role != llms.ChatMessageTypeAI {
		return nil, fmt.Errorf("toolnode: the last message (id %q) is a %s message, not an AI message", last.ID, last.Role)
	}
	calls := last.ToolCalls()
	if len(calls) == 0 {
		return nil, nil
	}
	results, err := r.runCalls(ctx, calls, make([]*string, len(calls)))
	if err != nil {
		return nil, err
	}
	out := make([]chat.Message, 0, len(calls))
	for i, c := range calls {
		out = append(out, toolMessage(c, results[i]))
	}
	return out, nil
}

// reviewCalls asks for the decisions on the calls that need selects (an
// interrupt, the first time) and applies them: edited arguments are set in
// calls, rejections in answers. It returns the AI message with its calls
// edited, when an edit changed one.
func reviewCalls(ctx context.Context, need func(llms.ToolCall) bool, ai chat.Message, calls []llms.ToolCall, answers []*string, decided func(context.Context, Review, []Decision)) (*chat.Message, error) {
	rev := Review{MessageID: ai.ID}
	var at []int
	for i, c := range calls {
		if need(c) {
			rev.Calls = append(rev.Calls, ReviewCall{ID: c.ID, Tool: callName(c), Args: callArgs(c)})
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil, nil
	}
	decisions, err := graph.Interrupt[[]Decision](ctx, rev)
	if err != nil {
		return nil, err
	}
	if err := check(rev, decisions); err != nil {
		return nil, err
	}
	if decided != nil {
		decided(ctx, rev, decisions)
	}
	edited := false
	for k, d := range decisions {
		i := at[k]
		switch d.Action {
		case ActionReject:
			why := d.Reason
			if why == "" {
				why = "no reason given"
			}
			msg := fmt.Sprintf("The reviewer rejected this call; it was not run. Reason: %s", why)
			answers[i] = &msg
		case ActionEdit:
			if d.Args != callArgs(calls[i]) {
				fc := llms.FunctionCall{Name: callName(calls[i]), Arguments: d.Args}
				calls[i].FunctionCall = &fc
				edited = true
			}
		}
	}
	if !edited {
		return nil, nil
	}
	m := ai
	m.Parts = slices.Clone(ai.Parts)
	k := 0
	for j, p := range m.Parts {
		if _, ok := p.(llms.ToolCall); ok {
			m.Parts[j] = calls[k]
			k++
		}
	}
	return &m, nil
}

// runCalls runs the calls not answered yet, at most maxParallel at once,
// and returns every call's tool message content, in call order.
func (r *runner) runCalls(ctx context.Context, calls []llms.ToolCall, answers []*string) ([]string, error) {
	results := make([]string, len(calls))
	errs := make([]error, len(calls))
	sem := make(chan struct{}, r.opts.maxParallel)
	var wg sync.WaitGroup
	for i, c := range calls {
		if answers[i] != nil {
			results[i] = *answers[i]
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, context.Cause(ctx)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], errs[i] = r.call(ctx, i, c)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if graph.IsHandoff(err) { // a command for the parent graph, not a failure
			return nil, err
		}
		// An interrupt (an in-doubt call's question among them) or a call
		// in doubt is never an answer: the model would call again, and the
		// ledger would not know the new call for the old one.
		if errors.Is(err, graph.ErrInterrupted) || errors.Is(err, effect.ErrInDoubt) {
			return nil, fmt.Errorf("toolnode: call %q of tool %q: %w", calls[i].ID, callName(calls[i]), err)
		}
		content, herr := r.opts.onError(calls[i], err)
		if herr != nil {
			return nil, fmt.Errorf("toolnode: call %q of tool %q: %w", calls[i].ID, callName(calls[i]), herr)
		}
		results[i] = content
	}
	return results, nil
}

// call runs call c, the i-th of its message, a panic turned into an error.
func (r *runner) call(ctx context.Context, i int, c llms.ToolCall) (string, error) {
	name := callName(c)
	t, ok := r.tools[name]
	if !ok {
		return "", fmt.Errorf("%q is %w; the tools are: %s", name, ErrUnknownTool, strings.Join(r.names, ", "))
	}
	run := func(ctx context.Context) (out string, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("tool %q panicked: %v", name, p)
			}
		}()
		return t.Call(ctx, input(t, callArgs(c)))
	}
	ctx = effect.WithCallID(ctx, c.ID)
	if r.opts.ledger && hasSideEffects(t) {
		plain, rec := run, reconcilerOf(t)
		run = func(ctx context.Context) (string, error) {
			return effect.Do(ctx, name, input(t, callArgs(c)), rec, plain)
		}
	}
	if r.opts.around != nil {
		return r.opts.around(context.WithValue(ctx, indexKey{}, i), c, run)
	}
	return run(ctx)
}

func callName(c llms.ToolCall) string {
	if c.FunctionCall == nil {
		return ""
	}
	return c.FunctionCall.Name
}

func callArgs(c llms.ToolCall) string {
	if c.FunctionCall == nil {
		return ""
	}
	return c.FunctionCall.Arguments
}

func validJSON(s string) bool { return json.Valid([]byte(s)) }

// toolMessage is the tool message answering call with content. Its id is
// derived from the call's id and the answer, so it is known when the
// task's writes are streamed (a LangChain front end keys messages by id)
// and the same on a replay.
func toolMessage(call llms.ToolCall, content string) chat.Message {
	m := chat.ToolResult(call.ID, callName(call), content)
	return m.WithID(chat.DeriveID("tool:"+call.ID, m))
}

// hasSideEffects reports whether t goes through the ledger under
// WithLedger: it reports side effects and is not a ledger tool already.
func hasSideEffects(t tools.Tool) bool {
	if _, ok := t.(*effect.Tool); ok {
		return false
	}
	se, ok := t.(interface{ SideEffects() bool })
	return ok && se.SideEffects()
}

// reconcilerOf returns t's reconcile hook, or nil.
func reconcilerOf(t tools.Tool) effect.Reconciler {
	if rec, ok := t.(effect.Reconciler); ok {
		return rec
	}
	return nil
}
