package nodes_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/nodes"
)

// A model's reply, with prose and a code fence, parsed and validated against
// the tools: every problem is listed, each naming its step.
func ExampleValidate() {
	reply := "Sure, here is the plan:\n```json\n" + `{"steps": [
  {"id": "s1", "description": "look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}},
  {"id": "s2", "description": "check stock", "tool": "stock_chek", "input": {"sku": "{{s1.result.sku}}"}},
  {"id": "s3", "description": "answer", "tool": "", "depends_on": ["s2", "s4"]}
]}` + "\n```\nLet me know!"
	plan, err := nodes.ParsePlan(reply)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = nodes.Validate(plan, nodes.NewDeliveryCase().Tools())
	var pe *nodes.PlanError
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Printf("%s: %s\n", p.Kind, p)
		}
	}
	// Output:
	// unknown_tool: step "s2": unknown tool "stock_chek" (available: order_lookup, stock_check, shipping_quote, change_order); did you mean "stock_check"?
	// missing_dependency: step "s3": depends on "s4", which is not in the plan
	// undeclared_reference: step "s2": input references {{s1.result.sku}}, but "s1" is not in depends_on
}

// The template planner answers the delivery question with no model call.
func ExampleTemplatePlanner() {
	c := nodes.NewDeliveryCase()
	planner := &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: c.Tools()}
	plan, info, err := planner.Plan(context.Background(), c.Request())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Source, "model calls:", info.ModelCalls)
	order, _ := nodes.TopoOrder(plan)
	for _, id := range order {
		s, _ := plan.Step(id)
		fmt.Printf("%s [%s] %s\n", s.ID, s.Tool, s.Description)
	}
	fmt.Println("ready:", plan.Ready()[0].ID)
	// Output:
	// template:delivery-check model calls: 0
	// order [order_lookup] Look up the order: item, quantity, address and warehouse
	// stock_a [stock_check] Check stock at the order's warehouse and when it could arrive
	// deliver_a [shipping_quote] Arrange delivery from the order's warehouse: quote standard shipping
	// answer [] Answer: can it arrive before the deadline, with the evidence
	// ready: order
}
