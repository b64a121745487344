package eval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/eval"
)

// The offline delivery agent over two cases: one it answers, one no plan
// template matches.
func ExampleRun() {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := agent.Compile()
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := eval.Run(context.Background(), app, []eval.Case{{
		Name: "o1001", Goal: c.Goal(), Constraints: c.Constraints(),
		Check: func(s nodes.AgentState) error {
			if !strings.Contains(s.Answer(), "warehouse B, standard shipping") {
				return errors.New("no recommendation")
			}
			return nil
		},
	}, {
		Name: "weather", Goal: "What is the weather?",
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Results {
		fmt.Printf("%s: ok %v, %d tool calls\n", r.Name, r.OK, r.ToolCalls)
		if r.Error != "" {
			fmt.Println("  error:", r.Error)
		}
	}
	fmt.Printf("success %.0f%%, %.1f tool calls on average\n", 100*rep.SuccessRate, rep.MeanToolCalls)
	// Output:
	// o1001: ok true, 5 tool calls
	// weather: ok false, 0 tool calls
	//   error: graph: node "planner" failed at step 1: nodes: planner: no plan template matches the goal
	// success 50%, 2.5 tool calls on average
}
