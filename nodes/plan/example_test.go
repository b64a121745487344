package plan_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// tool is a tool that is only a name, enough to validate against.
type tool string

func (t tool) Name() string                                 { return string(t) }
func (t tool) Description() string                          { return string(t) }
func (t tool) Call(context.Context, string) (string, error) { return "", nil }

// A model's reply, with prose and a code fence, parsed and validated against
// the tools: every problem is listed, each naming its step.
func ExampleValidate() {
	reply := "Sure, here is the plan:\n```json\n" + `{"steps": [
  {"id": "s1", "description": "look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}},
  {"id": "s2", "description": "check stock", "tool": "stock_chek", "input": {"sku": "{{s1.result.sku}}"}},
  {"id": "s3", "description": "answer", "tool": "", "depends_on": ["s2", "s4"]}
]}` + "\n```\nLet me know!"
	p, err := plan.Parse(reply)
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := []tools.Tool{tool("order_lookup"), tool("stock_check"), tool("shipping_quote"), tool("change_order")}
	err = plan.Validate(p, ts)
	var ve *plan.ValidationError
	if errors.As(err, &ve) {
		for _, pr := range ve.Problems {
			fmt.Printf("%s: %s\n", pr.Kind, pr)
		}
	}
	// Output:
	// unknown_tool: step "s2": unknown tool "stock_chek" (available: order_lookup, stock_check, shipping_quote, change_order); did you mean "stock_check"?
	// missing_dependency: step "s3": depends on "s4", which is not in the plan
	// undeclared_reference: step "s2": input references {{s1.result.sku}}, but "s1" is not in depends_on
}

// References resolve against the results of earlier steps: a string that
// is one reference becomes the referenced JSON value.
func ExampleResolveInput() {
	results := plan.Results{"order": {ID: "order", Status: plan.StatusCompleted, Result: `{"warehouse":"A","sku":"SKU-01"}`}}
	in, err := plan.ResolveInput("stock", []byte(`{"warehouse":"{{order.result.warehouse}}","note":"sku {{order.result.sku}}"}`), results)
	fmt.Println(string(in), err)
	// Output:
	// {"note":"sku SKU-01","warehouse":"A"} <nil>
}

// A plan whose final step writes the answer with references to the
// results: once the steps completed, Answer resolves it.
func ExamplePlan_Answer() {
	p, err := plan.Parse(`{"steps":[
  {"id":"fx","description":"USD to EUR","tool":"fx","input":{"from":"USD","to":"EUR"}},
  {"id":"answer","description":"Answer","tool":"","input":{"answer":"1 USD is {{fx.result.rate}} EUR."},"depends_on":["fx"]}]}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	p.Steps[0].Status, p.Steps[0].Result = plan.StatusCompleted, `{"rate":0.92}`
	p.Steps[1].Status = plan.StatusCompleted
	answer, ok, err := p.Answer()
	fmt.Println(answer, ok, err)
	// Output: 1 USD is 0.92 EUR. true <nil>
}
