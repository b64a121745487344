package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestTheAgentStreamsTheTokensOfItsModelCalls(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	app, c := agentOn(t, srv, nodes.Budget{MaxModelCalls: 10}, nodes.WithTokenStreaming())
	chunks := map[string][]string{} // by node
	var calls []nodes.ModelCall
	var final nodes.AgentState
	for ev, err := range app.Stream(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.StreamModes(graph.Messages, graph.Custom, graph.Values)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Messages:
			require.NotEmpty(t, calls, "a chunk follows its call's ModelCall")
			require.Equal(t, calls[len(calls)-1].MessageID, ev.MessageID, "a chunk carries its call's message id")
			chunks[ev.Node] = append(chunks[ev.Node], string(ev.Chunk))
		case graph.Custom:
			if mc, ok := ev.Custom.(nodes.ModelCall); ok {
				require.Equal(t, ev.Node, mc.Node, "a node's own call")
				calls = append(calls, mc)
			}
		case graph.Values:
			final = ev.State
		}
	}
	require.Equal(t, []nodes.ModelCall{{Node: nodes.NodePlanner, Attempt: 1}, {Node: nodes.NodeReplan, Attempt: 1}, {Node: nodes.NodeRespond, Attempt: 1}}, withoutMessageIDs(t, calls))
	require.Equal(t, fakechat.Chunks(deliveryAnswerReply), chunks[nodes.NodeRespond], "the answer, as it arrived")
	require.Equal(t, deliveryPlanReply, strings.Join(chunks[nodes.NodePlanner], ""))
	require.Equal(t, deliveryAnswerReply, final.Answer())
	require.Equal(t, 360, final.Usage.TotalTokens, "streamed calls still report their tokens")
	for _, r := range srv.Requests() {
		require.Contains(t, r, `"stream":true`)
	}
}

func TestTheAgentDoesNotStreamUnlessAsked(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	app, c := agentOn(t, srv, nodes.Budget{})
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		require.NotContains(t, r, `"stream":true`)
	}
}

func TestTokenStreamingAsksForNoStreamUnderInvoke(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	app, c := agentOn(t, srv, nodes.Budget{MaxModelCalls: 10}, nodes.WithTokenStreaming())
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 3)
	for _, r := range srv.Requests() {
		require.NotContains(t, r, `"stream":true`, "nobody reads the tokens")
	}
}

func TestAReActStepsModelCallsAreTaggedWithItsPlanStep(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
		{Content: "B has 4 units."},
	}}
	app := compileAgent(t, nodes.AgentConfig{
		Planner: onePlan(plan.Step{ID: "research", Description: "Can warehouse B ship SKU-01?"}), Tools: c.Tools(),
	}, nil, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil), nodes.WithTokenStreaming())
	var calls []nodes.ModelCall
	for ev, err := range app.Stream(t.Context(), nodes.NewInput("can B ship it?"), graph.StreamModes(graph.Custom)) {
		require.NoError(t, err)
		if mc, ok := ev.Custom.(nodes.ModelCall); ok {
			calls = append(calls, mc)
		}
	}
	require.Equal(t, []nodes.ModelCall{
		{Node: nodes.NodeExecute, StepID: "research", Attempt: 1},
		{Node: nodes.NodeExecute, StepID: "research", Attempt: 1},
	}, withoutMessageIDs(t, calls), "two model calls of the loop, each its own first attempt")
}

// withoutMessageIDs checks that every call has a message id of its own and
// returns the calls with the ids cleared, for comparing the rest.
func withoutMessageIDs(t *testing.T, calls []nodes.ModelCall) []nodes.ModelCall {
	t.Helper()
	seen := map[string]bool{}
	out := make([]nodes.ModelCall, len(calls))
	for i, c := range calls {
		require.NotEmpty(t, c.MessageID, "call %d has a message id", i)
		require.False(t, seen[c.MessageID], "call %d has a message id of its own", i)
		seen[c.MessageID] = true
		c.MessageID = ""
		out[i] = c
	}
	return out
}

// haltingStreamer is a model for ReAct steps "Step <id>: …" that streams
// "<id>-1", waits until release(id) is closed, streams "<id>-2" and
// returns their concatenation: the test closes release(id) only once the
// first chunk reached the stream, so a chunk held back until the call
// returned would never arrive.
type haltingStreamer struct {
	release func(id string) <-chan struct{}
}

var stepOfPrompt = regexp.MustCompile(`Step (\w+):`)

func (m haltingStreamer) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var prompt strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if tp, ok := p.(llms.TextContent); ok {
				prompt.WriteString(tp.Text)
			}
		}
	}
	id := stepOfPrompt.FindStringSubmatch(prompt.String())[1]
	if o.StreamingFunc == nil {
		return nil, errors.New("halting streamer: not streaming")
	}
	if err := o.StreamingFunc(ctx, []byte(id+"-1")); err != nil {
		return nil, err
	}
	select {
	case <-m.release(id):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := o.StreamingFunc(ctx, []byte(id+"-2")); err != nil {
		return nil, err
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: id + "-1" + id + "-2"}}}, nil
}

func (m haltingStreamer) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// TestTokenChunksArriveBeforeTheCallReturnsTaggedWithTheirPlanStep runs two
// ReAct steps in parallel, each streaming while the other does: every
// chunk reaches the stream while its model call is still under way, on the
// execute node, and the ModelCall with the chunk's MessageID names its
// plan step — round by round (one task a step) and with eager steps (the
// round's steps share one task).
func TestTokenChunksArriveBeforeTheCallReturnsTaggedWithTheirPlanStep(t *testing.T) {
	t.Parallel()
	for _, eager := range []bool{false, true} {
		t.Run(fmt.Sprintf("eager=%v", eager), func(t *testing.T) {
			t.Parallel()
			releases := map[string]chan struct{}{"north": make(chan struct{}), "south": make(chan struct{})}
			m := haltingStreamer{release: func(id string) <-chan struct{} { return releases[id] }}
			opts := []nodes.AgentOption{nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil), nodes.WithTokenStreaming()}
			if eager {
				opts = append(opts, nodes.WithEagerSteps(2))
			}
			app := compileAgent(t, nodes.AgentConfig{
				Planner: onePlan(plan.Step{ID: "north", Description: "Survey the north"}, plan.Step{ID: "south", Description: "Survey the south"}),
				Tools:   testTools("survey"),
			}, []graph.CompileOption{graph.WithCheckpointer(memory.New())}, opts...)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			stepOfMessage := map[string]string{}
			chunks := map[string][]string{} // by plan step
			for ev, err := range app.Stream(ctx, nodes.NewInput("survey both"), graph.WithThread("survey"), graph.StreamModes(graph.Messages, graph.Custom)) {
				require.NoError(t, err)
				switch ev.Mode {
				case graph.Custom:
					if mc, ok := ev.Custom.(nodes.ModelCall); ok {
						require.NotEmpty(t, mc.TaskID)
						require.Equal(t, ev.TaskID, mc.TaskID)
						require.NotEmpty(t, mc.MessageID)
						stepOfMessage[mc.MessageID] = mc.StepID
					}
				case graph.Messages:
					require.Equal(t, nodes.NodeExecute, ev.Node)
					step := stepOfMessage[ev.MessageID]
					require.NotEmpty(t, step, "a chunk of a call that was announced")
					chunk := string(ev.Chunk)
					require.True(t, strings.HasPrefix(chunk, step+"-"), "chunk %q tagged as step %q", chunk, step)
					chunks[step] = append(chunks[step], chunk)
					if strings.HasSuffix(chunk, "-1") {
						close(releases[step]) // the call is still waiting for this
					}
				}
			}
			require.Equal(t, map[string][]string{"north": {"north-1", "north-2"}, "south": {"south-1", "south-2"}}, chunks)
		})
	}
}
