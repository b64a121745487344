package toolnode_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// counter counts each tool's executions.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
	return c.n[name]
}

func (c *counter) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// resumeTools are look and send (plain), ask (asks a human with
// graph.Interrupt), and flaky (fails its first execution).
func resumeTools(c *counter) []tools.Tool {
	plain := func(name string) tools.Tool {
		return fn{name, func(_ context.Context, in string) (string, error) { c.add(name); return name + " did " + in, nil }}
	}
	return []tools.Tool{plain("look"), plain("send"),
		fn{"ask", func(ctx context.Context, in string) (string, error) {
			c.add("ask")
			answer, err := graph.Interrupt[string](ctx, "may I "+in+"?")
			if err != nil {
				return "", err
			}
			return "the human said " + answer, nil
		}},
		fn{"flaky", func(context.Context, string) (string, error) {
			if c.add("flaky") == 1 {
				return "", errors.New("flaked")
			}
			return "flaky did it", nil
		}},
	}
}

// dispatched is a graph as the prebuilt agent (version 2) wires it: the
// model node (here it writes the AI message of calls once), then each call
// a task of its own; with need, the calls it selects first go to a
// ReviewNode.
func dispatched(t *testing.T, saver checkpoint.Saver, ts []tools.Tool, calls []llms.ToolCall, need func(llms.ToolCall) bool, opts ...toolnode.Option) *graph.Compiled[convo] {
	t.Helper()
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("agent", func(_ context.Context, s convo) (state.Update[convo], error) {
		if last, _ := chat.Last(s.Messages); last.Role != llms.ChatMessageTypeHuman {
			return state.Update[convo]{}, nil
		}
		return state.Writes(msgs.Set([]chat.Message{chat.AI("", calls...).WithID("ai")})), nil
	})
	g.AddNode("tools", toolnode.New(msgs, ts, opts...))
	g.AddNode("review", toolnode.ReviewNode(msgs, "tools", need), graph.WithDestinations("tools"))
	dispatch := toolnode.Dispatch(msgs, "tools", graph.End)
	g.AddEdge(graph.Start, "agent")
	g.AddConditionalEdges("agent", func(ctx context.Context, s convo) (graph.Route[convo], error) {
		if toolnode.NeedsReview(s.Messages, need) {
			return graph.Route[convo]{To: []string{"review"}}, nil
		}
		return dispatch(ctx, s)
	}, "tools", "review", graph.End)
	g.AddEdge("tools", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

// Each tool call is a task of its own, so a resume runs only the calls
// that had not finished: one call's interrupt, one call's failure, or a
// review's stop redoes none of its siblings. Counted per tool, through
// every saver, each resume in a graph compiled afresh (another process).
func TestResumeDoesNotRerunFinishedToolCalls(t *testing.T) {
	t.Parallel()
	look := chat.Call("c1", "look", `{"input":"around"}`)
	send := chat.Call("c2", "send", `{"input":"mail"}`)
	ask := chat.Call("c3", "ask", `{"input":"pay"}`)
	flaky := chat.Call("c4", "flaky", `{"input":"x"}`)
	type resume struct {
		opts []graph.RunOption
		// err: the error the resumed run returns (nil: it finishes)
		err  error
		want map[string]int // executions per tool after the run
	}
	for _, tc := range []struct {
		name    string
		calls   []llms.ToolCall
		need    func(llms.ToolCall) bool
		opts    []toolnode.Option
		first   resume
		resumes []resume
		answers []string // the tool messages at the end, in call order
	}{{
		name:  "one call interrupts",
		calls: []llms.ToolCall{look, ask, send},
		first: resume{err: graph.ErrInterrupted, want: map[string]int{"look": 1, "ask": 1, "send": 1}},
		resumes: []resume{{opts: []graph.RunOption{graph.Resume("yes")},
			want: map[string]int{"look": 1, "ask": 2, "send": 1}}},
		answers: []string{"look did around", "the human said yes", "send did mail"},
	}, {
		name:  "one call fails the step",
		calls: []llms.ToolCall{look, flaky, send},
		opts:  []toolnode.Option{toolnode.PropagateErrors()},
		first: resume{err: &graph.NodeError{}, want: map[string]int{"look": 1, "flaky": 1, "send": 1}},
		resumes: []resume{{
			want: map[string]int{"look": 1, "flaky": 2, "send": 1}}},
		answers: []string{"look did around", "flaky did it", "send did mail"},
	}, {
		name:  "a review, then an interrupt in an approved call",
		calls: []llms.ToolCall{look, send, ask},
		need:  toolnode.ReviewTools("send", "ask"),
		first: resume{err: graph.ErrInterrupted, want: map[string]int{}},
		resumes: []resume{{
			opts: []graph.RunOption{graph.Resume([]toolnode.Decision{toolnode.Edit(`{"input":"a letter"}`), toolnode.Approve()})},
			err:  graph.ErrInterrupted, want: map[string]int{"look": 1, "send": 1, "ask": 1},
		}, {
			opts: []graph.RunOption{graph.Resume("no")},
			want: map[string]int{"look": 1, "send": 1, "ask": 2},
		}},
		answers: []string{"look did around", "send did a letter", "the human said no"},
	}, {
		name:  "a rejected call keeps its place",
		calls: []llms.ToolCall{send, look},
		need:  toolnode.ReviewTools("send"),
		first: resume{err: graph.ErrInterrupted, want: map[string]int{}},
		resumes: []resume{{
			opts: []graph.RunOption{graph.Resume([]toolnode.Decision{toolnode.Reject("not now")})},
			want: map[string]int{"look": 1},
		}},
		answers: []string{"The reviewer rejected this call; it was not run. Reason: not now", "look did around"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for name, saver := range chattest.Savers(t) {
				t.Run(name, func(t *testing.T) {
					ctx := context.Background()
					var c counter
					ts := resumeTools(&c)
					thread := graph.WithThread("t")
					check := func(r resume, err error) {
						t.Helper()
						switch want := r.err.(type) {
						case nil:
							require.NoError(t, err)
						case *graph.NodeError:
							require.ErrorAs(t, err, &want)
							assert.Equal(t, "tools", want.Node)
						default:
							require.ErrorIs(t, err, want)
						}
						assert.Equal(t, r.want, c.counts())
					}
					_, err := dispatched(t, saver, ts, tc.calls, tc.need, tc.opts...).Invoke(ctx, state.Writes(msgs.Set([]chat.Message{chat.Human("go")})), thread)
					check(tc.first, err)
					var out convo
					for _, r := range tc.resumes {
						out, err = dispatched(t, saver, ts, tc.calls, tc.need, tc.opts...).Invoke(ctx, state.Update[convo]{}, append([]graph.RunOption{thread}, r.opts...)...)
						check(r, err)
					}
					var got []string
					for i, r := range toolReplies(t, out.Messages) {
						assert.Equal(t, tc.calls[i].ID, r.ToolCallID, "answers in call order")
						got = append(got, r.Content)
					}
					assert.Equal(t, tc.answers, got)
				})
			}
		})
	}
}
