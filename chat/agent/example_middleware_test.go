package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// down is a model that always fails.
type down struct{}

func (down) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, errors.New("503 service unavailable")
}

func (down) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("503 service unavailable")
}

type cityArgs struct {
	City string `json:"city"`
}

// Middleware is an ordered list around the model and tool calls; each
// step it takes is a Step in the state (and a Custom event in a stream).
func ExampleWithMiddleware() {
	backup := &scripted{replies: []llms.ContentChoice{{Content: "Mail me at [REDACTED_EMAIL]? Sure: ann@example.com."}}}
	a := agent.New[agent.NoResponse](down{}, nil, agent.WithMiddleware(
		agent.CallLimit{RunModelCalls: 5, ThreadModelCalls: 100},
		agent.ModelFallback{Models: []llms.Model{backup}},
		agent.Redact{},
	))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("My card is 4111 1111 1111 1111.")))
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Messages[0].Text())
	fmt.Println(out.Messages[1].Text())
	for _, s := range out.Steps {
		fmt.Printf("%s: %s (%s)\n", s.Middleware, s.Action, s.Detail)
	}
	// Output:
	// My card is [REDACTED_CARD_NUMBER].
	// Mail me at [REDACTED_EMAIL]? Sure: [REDACTED_EMAIL].
	// fallback: fell back (model 1 of 2 failed (503 service unavailable); trying model 2)
	// redact: redacted (the model's reply before storage: 1 email)
}

// CallLimit stops a runaway agent with an error naming the bound.
func ExampleCallLimit() {
	loop := llms.ContentChoice{ToolCalls: []llms.ToolCall{chat.Call("c", "ping", `{"city":"x"}`)}}
	model := &scripted{replies: []llms.ContentChoice{loop, loop, loop, loop}}
	ping := tool.New("ping", "pings", func(context.Context, cityArgs) (string, error) { return "pong", nil })
	a := agent.New[agent.NoResponse](model, []tools.Tool{ping}, agent.WithMiddleware(agent.CallLimit{RunToolCalls: 2}))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	_, err = app.Invoke(context.Background(), a.Input(chat.Human("go")))
	var le *agent.LimitError
	fmt.Println(errors.As(err, &le), le.Limit, le.Max)
	// Output:
	// true RunToolCalls 2
}

// ToolOutputLimit cuts a long result before it enters the history; with a
// store (graph.WithStore) the whole result is kept there.
func ExampleToolOutputLimit() {
	model := &scripted{replies: []llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{chat.Call("call_1", "dump", `{"city":"x"}`)}},
		{Content: "done"},
	}}
	dump := tool.New("dump", "dumps", func(context.Context, cityArgs) (string, error) { return strings.Repeat("x", 100_000), nil })
	a := agent.New[agent.NoResponse](model, []tools.Tool{dump}, agent.WithMiddleware(agent.ToolOutputLimit{MaxBytes: 10}))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("dump")))
	if err != nil {
		panic(err)
	}
	r, _ := out.Messages[2].ToolResponse()
	fmt.Println(r.Content)
	// Output:
	// xxxxxxxxxx
	// [output truncated: 10 of 100000 bytes shown]
}

// Redact's detectors: e-mail addresses, phone numbers and card numbers
// that pass the Luhn check.
func ExampleRedact() {
	text, found := agent.Redact{}.Text("Card 4111-1111-1111-1111, call +47 22 33 44 55 or mail ann@example.com; order 12345.")
	fmt.Println(text)
	fmt.Println(found)
	// Output:
	// Card [REDACTED_CARD_NUMBER], call [REDACTED_PHONE] or mail [REDACTED_EMAIL]; order 12345.
	// map[card_number:1 email:1 phone:1]
}

// Summarize replaces old turns past a token budget with a summary kept in
// the state; the model is sent the summary and the recent turns.
func ExampleSummarize() {
	model := &scripted{replies: []llms.ContentChoice{
		{Content: "The user likes fjords."}, // the summary
		{Content: "Then visit Geiranger."},  // the answer
	}}
	a := agent.New[agent.NoResponse](model, nil, agent.WithMiddleware(
		agent.Summarize{MaxTokens: 40, Keep: history.Window{MaxMessages: 1}}))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(
		chat.Human(strings.Repeat("I like fjords. ", 12)), chat.AI("Noted."), chat.Human("Where should I go?")))
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// system: Summary of the conversation so far:
	// The user likes fjords.
	// human: Where should I go?
	// ai: Then visit Geiranger.
}

// ToolRetry retries a failing tool; Backoff and Sleep are injectable.
func ExampleToolRetry() {
	model := &scripted{replies: []llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{chat.Call("call_1", "flaky", `{"city":"x"}`)}},
		{Content: "done"},
	}}
	tries := 0
	flaky := tool.New("flaky", "fails twice", func(context.Context, cityArgs) (string, error) {
		if tries++; tries < 3 {
			return "", errors.New("timeout")
		}
		return "ok", nil
	})
	retry := agent.ToolRetry{Tools: []string{"flaky"}, MaxAttempts: 3,
		Backoff: func(n int) time.Duration { return time.Duration(n) * time.Second },
		Sleep:   func(context.Context, time.Duration) error { return nil }}
	a := agent.New[agent.NoResponse](model, []tools.Tool{flaky}, agent.WithMiddleware(retry))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("go")))
	if err != nil {
		panic(err)
	}
	r, _ := out.Messages[2].ToolResponse()
	fmt.Println(r.Content, len(out.Steps))
	// Output:
	// ok 2
}

// EditContext edits what each model call is sent; the state is unchanged.
func ExampleEditContext() {
	model := &scripted{replies: []llms.ContentChoice{{Content: "hi"}}}
	onlyLast := agent.EditContext(func(_ context.Context, msgs []chat.Message) []chat.Message {
		return msgs[len(msgs)-1:]
	})
	a := agent.New[agent.NoResponse](model, nil, agent.WithMiddleware(onlyLast))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("old"), chat.AI("older reply"), chat.Human("hello")))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(out.Messages), out.Steps[0].Detail)
	// Output:
	// 4 1 messages sent instead of 3
}

// Two agents built over one state, as subgraphs of a graph over it:
// triage hands the conversation to billing with a Handoff tool.
func ExampleHandoffTo() {
	type Desk struct{ Messages []chat.Message }
	msgs := chat.Messages("messages", func(s *Desk) *[]chat.Message { return &s.Messages })
	schema := state.NewSchema[Desk](msgs)
	keys := agent.Keys[Desk, agent.NoResponse]{Messages: msgs}

	triageModel := &scripted{replies: []llms.ContentChoice{{ToolCalls: []llms.ToolCall{chat.Call("h", "transfer_to_billing", `{}`)}}}}
	billingModel := &scripted{replies: []llms.ContentChoice{{Content: "Refund issued."}}}
	triage, err := agent.Build(schema, keys, triageModel, []tools.Tool{agent.HandoffTo("billing", msgs)}).Compile()
	if err != nil {
		panic(err)
	}
	billing, err := agent.Build(schema, keys, billingModel, nil).Compile()
	if err != nil {
		panic(err)
	}
	app, err := graph.New(schema).
		AddSubgraph("triage", triage, graph.WithDestinations("billing")).
		AddSubgraph("billing", billing).
		AddEdge(graph.Start, "triage").
		Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.Human("refund please")})))
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages {
		r, _ := m.ToolResponse()
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s%s", m.Role, m.Text(), r.Content)))
	}
	// Output:
	// human: refund please
	// ai:
	// tool: Transferred to billing.
	// ai: Refund issued.
}

// A supervisor calls a sub-agent as a tool; the sub-agent's conversation
// stays out of the supervisor's.
func ExampleAgent_AsTool() {
	researcher := agent.New[agent.NoResponse](&scripted{replies: []llms.ContentChoice{{Content: "About 700,000."}}}, nil)
	supModel := &scripted{replies: []llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{chat.Call("r", "researcher", `{"task":"Population of Oslo?"}`)}},
		{Content: "Oslo has about 700,000 people."},
	}}
	sup := agent.New[agent.NoResponse](supModel, []tools.Tool{researcher.AsTool("researcher", "Finds facts.")})
	app, err := sup.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), sup.Input(chat.Human("How many people live in Oslo?")))
	if err != nil {
		panic(err)
	}
	r, _ := out.Messages[2].ToolResponse()
	fmt.Println(len(out.Messages), r.Content, "/", out.Messages[3].Text())
	// Output:
	// 4 About 700,000. / Oslo has about 700,000 people.
}
