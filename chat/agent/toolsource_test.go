package agent_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/mcp"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

type pairArgs struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

func pairTool(s *sdk.Server, name, desc string, f func(a, b int) int) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc},
		func(_ context.Context, _ *sdk.CallToolRequest, in pairArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.Itoa(f(in.A, in.B))}}}, nil, nil
		})
}

// An MCP server (the Go SDK's, in memory) changes its tool list in the
// middle of a thread: with WithToolSource, the agent offers the model the
// tools of the moment at each call, and runs the new tool.
func TestToolSourceFollowsAnMCPServersToolListMidThread(t *testing.T) {
	t.Parallel()
	srv := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1"}, nil)
	pairTool(srv, "add", "adds two numbers", func(a, b int) int { return a + b })
	changed := make(chan []tools.Tool, 4)
	server := mcp.Server{Name: "calc", Transport: func() sdk.Transport {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = ss.Close() })
		return ct
	}}
	client, err := mcp.Connect(t.Context(), server, mcp.WithToolsChanged(func(ts []tools.Tool) { changed <- ts }))
	require.NoError(t, err)
	defer client.Close()

	model := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a":2,"b":3}`}}},
		fakechat.Turn{Once: true, Content: "5"},
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "c2", Name: "mul", Arguments: `{"a":6,"b":7}`}}},
		fakechat.Turn{Once: true, Content: "42"},
		fakechat.Turn{Once: true, Content: "no adding any more"},
	)
	var ran int
	local := echoTool("local", func(string) (string, error) { ran++; return "here", nil })
	a := agent.New[agent.NoResponse](openAI(t, model), []tools.Tool{local},
		agent.WithToolSource(func(context.Context) []tools.Tool { return client.Tools() }))
	app, err := a.Graph.Compile(graph.WithCheckpointer(chattest.Savers(t)["sqlite"]))
	require.NoError(t, err)
	ask := func(q string) noState {
		out, err := app.Invoke(t.Context(), a.Input(chat.Human(q)), graph.WithThread("calc"))
		require.NoError(t, err)
		return out
	}

	out := ask("2+3?")
	assert.Equal(t, "5", mustResponse(t, out.Messages[2]), "the add tool's answer")

	pairTool(srv, "mul", "multiplies two numbers", func(a, b int) int { return a * b })
	waitChange(t, changed)
	out = ask("6*7?")
	n := len(out.Messages)
	assert.Equal(t, "42", mustResponse(t, out.Messages[n-2]), "the tool added mid-thread ran")
	assert.Equal(t, "42", out.Messages[n-1].Text())

	srv.RemoveTools("add")
	waitChange(t, changed)
	ask("2+2?")

	reqs := model.Requests()
	require.Len(t, reqs, 5)
	for i, r := range reqs {
		assert.Contains(t, r, `"description":"a tool"`, "request %d offers the given tool", i)
	}
	for i, want := range []struct{ add, mul bool }{{true, false}, {true, false}, {true, true}, {true, true}, {false, true}} {
		assert.Equal(t, want.add, strings.Contains(reqs[i], `"description":"adds two numbers"`), "request %d offers add", i)
		assert.Equal(t, want.mul, strings.Contains(reqs[i], `"description":"multiplies two numbers"`), "request %d offers mul", i)
	}
	assert.Zero(t, ran)
}

// waitChange waits for the client's next tool list, at most a minute.
func waitChange(t *testing.T, changed <-chan []tools.Tool) {
	t.Helper()
	bound, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	select {
	case <-changed:
	case <-bound.Done():
		require.FailNow(t, "no notifications/tools/list_changed from the server")
	}
}

// A source's tool named like a given one, or like an earlier one of the
// source's, is not offered: a model is never offered two tools of a name.
func TestToolSourceLeavesOutTakenNames(t *testing.T) {
	t.Parallel()
	model := fakechat.NewTurns(t, fakechat.Turn{Content: "hi"})
	named := func(name, desc string) tools.Tool {
		return tool.New(name, desc, func(context.Context, weatherArgs) (string, error) { return "", nil })
	}
	a := agent.New[agent.NoResponse](openAI(t, model), []tools.Tool{named("local", "the given one")},
		agent.WithToolSource(func(context.Context) []tools.Tool {
			return []tools.Tool{named("local", "a shadow"), nil, named("x", "the first x"), named("x", "the second x")}
		}))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(t.Context(), a.Input(chat.Human("hi")))
	require.NoError(t, err)
	reqs := model.Requests()
	require.Len(t, reqs, 1)
	for desc, offered := range map[string]bool{"the given one": true, "a shadow": false, "the first x": true, "the second x": false} {
		assert.Equal(t, offered, strings.Contains(reqs[0], `"description":"`+desc+`"`), desc)
	}
}
