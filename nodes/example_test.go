package nodes_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/llms/openai"
)

// The template planner answers the delivery question with no model call.
func ExampleTemplatePlanner() {
	c := delivery.New()
	planner := &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: c.Tools()}
	p, info, err := planner.Plan(context.Background(), c.Request())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Source, "model calls:", info.ModelCalls)
	order, _ := plan.TopoOrder(p)
	for _, id := range order {
		s, _ := p.Step(id)
		fmt.Printf("%s [%s] %s\n", s.ID, s.Tool, s.Description)
	}
	fmt.Println("ready:", p.Ready()[0].ID)
	// Output:
	// template:delivery-check model calls: 0
	// order [order_lookup] Look up the order: item, quantity, address and warehouse
	// stock_a [stock_check] Check stock at the order's warehouse and when it could arrive
	// deliver_a [shipping_quote] Arrange delivery from the order's warehouse: quote standard shipping
	// answer [] Answer: can it arrive before the deadline, with the evidence
	// ready: order
}

// The delivery agent as a graph, offline: template planner, rule-based
// replan, template responder, no model. The answer's key lines, then the
// graph.
func ExampleNewAgent() {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := app.Invoke(context.Background(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("O1001"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(out.Answer(), "\n") {
		if strings.HasPrefix(line, "Warehouse A") || strings.HasPrefix(line, "- warehouse B") ||
			strings.HasPrefix(line, "Recommendation") || strings.HasPrefix(line, "Confirm") || strings.HasPrefix(line, "Nothing") {
			fmt.Println(line)
		}
	}
	fmt.Printf("rounds %d, replans %d, tool calls %d, model calls %d\n",
		out.Usage.Rounds, out.Usage.Replans, out.Usage.ToolCalls, out.Usage.ModelCalls)
	fmt.Print(app.Mermaid())
	// Output:
	// Warehouse A cannot make it: no stock (0 available), restock Saturday 10:00, so delivery would be next Monday 18:00, after Friday 18:00.
	// - warehouse B, express: arrives Thursday 18:00, extra 35 — excluded: extra cost 35 > 20 (the cap)
	// - warehouse B, standard: arrives Friday 16:00, extra 10 — candidate: arrives Friday 16:00, extra 10
	// Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00 (estimated; 4 in stock there).
	// Confirm by Tuesday 16:00; re-check stock and the quote when confirming.
	// Nothing was changed: this was a query only; the order was not modified and no stock was reserved.
	// rounds 2, replans 1, tool calls 5, model calls 0
	// graph TD;
	// 	__start__ --> planner;
	// 	execute --> replan;
	// 	planner -.-> execute;
	// 	replan -.-> execute;
	// 	replan -.-> respond;
	// 	respond --> __end__;
}

// A real model behind a flaky network: retries with backoff and the
// server's Retry-After, each attempt bounded, each tool call and each step
// too; a timeout fails the step, which the replanner sees.
func ExampleWithModelRetry() {
	llm, err := openai.New(openai.WithToken("sk-test"), openai.WithModel("gpt-4o-mini"),
		openai.WithHTTPClient(nodes.HTTPClient(nil)))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := delivery.New()
	cfg := c.AgentConfig()
	cfg.Model = llm
	cfg.Planner, cfg.Replanner, cfg.Responder = nil, nil, nil
	agent, err := nodes.NewAgent(cfg,
		nodes.WithModelRetry(nodes.ModelRetry{MaxAttempts: 5, Timeout: time.Minute}),
		nodes.WithToolTimeout(10*time.Second),
		nodes.WithStepTimeout(30*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, resilient := agent.Config().Model.(*nodes.ResilientModel)
	fmt.Println("resilient:", resilient)
	// Output: resilient: true
}

// With eager steps, each step of the delivery plan starts as soon as the
// steps it depends on complete: the lookup, the stock check and (after the
// revision) the three checks of warehouse B run in two rounds, not four,
// each step's outcome saved as it completes.
func ExampleWithEagerSteps() {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig(), nodes.WithEagerSteps(4))
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		fmt.Println(err)
		return
	}
	var finished []string
	var out nodes.AgentState
	for ev, err := range app.Stream(context.Background(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001-eager"),
		graph.StreamModes(graph.Custom, graph.Values)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if se, ok := ev.Custom.(nodes.StepEvent); ok && se.Outcome != nil {
			finished = append(finished, se.StepID)
		}
		if ev.Mode == graph.Values {
			out = ev.State
		}
	}
	slices.Sort(finished)
	fmt.Println("steps finished:", strings.Join(finished, ", "))
	fmt.Printf("rounds %d, replans %d, tool calls %d\n", out.Usage.Rounds, out.Usage.Replans, out.Usage.ToolCalls)
	// Output:
	// steps finished: b_express, b_standard, b_stock, order, recommend, stock_a
	// rounds 2, replans 1, tool calls 5
}

// Round by round, each step of a round is its own execute task and waits
// for the whole round before it: the delivery case takes four rounds.
func ExampleWithRoundByRound() {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig(), nodes.WithRoundByRound())
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := app.Invoke(context.Background(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001-rounds"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rounds %d, replans %d, tool calls %d\n", out.Usage.Rounds, out.Usage.Replans, out.Usage.ToolCalls)
	// Output: rounds 4, replans 1, tool calls 5
}

// A tool output longer than the cap is cut for a prompt, with a marker;
// the run's state keeps it whole.
func ExampleCapOutput() {
	rows := strings.Repeat("SKU-7: 12 units\n", 3)
	fmt.Println(nodes.CapOutput(rows, 20))
	// Output:
	// SKU-7: 12 units
	// SKU-
	// [… output truncated for this prompt: 20 of 48 bytes shown; the whole output is in the run's state]
}
