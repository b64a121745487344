package main

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/deliverytest"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stretchr/testify/require"
)

func TestModelOpenAIAgainstALocalServer(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewWith(t, fakechat.Options{Key: "test"}, // the client must send OPENAI_API_KEY
		fakechat.Rule{Marker: "You are a planner", Reply: deliverytest.PlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliverytest.ReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliverytest.AnswerReply},
	)
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-openai")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitOK, res.Code, res.Stderr)

	require.Contains(t, res.Stdout, "setup: OpenAI model test at "+srv.URL+" plans, replans and answers")
	require.Contains(t, res.Stdout, "REPLAN (adaptive:partial:model)")
	requireRecommendation(t, res.Stdout)
	require.Contains(t, res.Stdout, "5 tool calls (5 by this process), 3 model calls, 360 tokens")

	reqs := srv.Requests()
	require.Len(t, reqs, 3, "planner, replanner, responder: one call each")
	require.Contains(t, reqs[0], "order_lookup", "the planner is shown the tools")
	require.Contains(t, reqs[1], "lost its premise", "the replanner is told why")
	require.Contains(t, reqs[2], "shipping_quote B standard: arrives Friday 16:00, extra 10")
}

func TestModelErrorFailsTheRunAndSaysHowToRetry(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewWith(t, fakechat.Options{Key: "test"}) // no scripted replies: every request is refused
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-refused")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitFailed, res.Code)
	require.Contains(t, res.Stderr, `node "planner" failed`)
	require.Contains(t, res.Stderr, "no scripted reply")
	require.Equal(t, 1, strings.Count(res.Stdout+res.Stderr, "no scripted reply"), "the error is printed once")
	require.Equal(t, 1, strings.Count(res.Stderr, "nodes: "), "each prefix once: %s", res.Stderr)
	require.Contains(t, res.Stdout, "✗ planner")
	require.Contains(t, res.Stderr, "to retry what failed: go run ./examples/planexecute -resume -thread t-refused -model openai")
	require.NotContains(t, res.Stdout, "Recommendation")
}
