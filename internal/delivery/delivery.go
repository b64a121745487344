package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/tools"
)

// Case is the seed documents' delivery question, simulated: on a
// Tuesday morning a user asks whether order O1001 (1 × SKU-01, shipping from
// warehouse A) can arrive before Friday 18:00, and if not, for alternatives
// with the same item, quantity and address — another warehouse or shipping
// method allowed, extra cost at most 20, query only, change nothing.
//
// Its tools answer from the case's data and count their calls; its template
// plan, checker, replan template and responder are the rule-based agent for it.
type Case struct {
	Now          time.Time
	Deadline     time.Time
	OrderID      string
	SKU          string
	Quantity     int
	Warehouse    string // the order's warehouse
	Address      string
	MaxExtraCost float64
	Stock        map[string]WarehouseStock
	Quotes       []ShippingQuote

	mu    sync.Mutex
	calls map[string]int
}

// WarehouseStock is a warehouse's stock of the case's SKU.
type WarehouseStock struct {
	Warehouse       string     `json:"warehouse"`
	SKU             string     `json:"sku"`
	Available       int        `json:"available"`
	RestockAt       *time.Time `json:"restock_at,omitempty"`
	EarliestArrival *time.Time `json:"earliest_arrival,omitempty"` // when it cannot ship now
	SwitchAllowed   bool       `json:"switch_allowed"`             // the order may be moved here
}

// ShippingQuote is a quote for shipping the order from a warehouse by a method.
type ShippingQuote struct {
	Warehouse string    `json:"warehouse"`
	Method    string    `json:"method"`
	Arrives   time.Time `json:"arrives"`
	ExtraCost float64   `json:"extra_cost"`
	ConfirmBy time.Time `json:"confirm_by,omitzero"`
}

// New returns the case with the seed documents' data (Beijing time,
// the week of Tuesday 4 June 2024).
func New() *Case {
	bj := time.FixedZone("CST", 8*3600)
	at := func(day, hour int) time.Time { return time.Date(2024, 6, day, hour, 0, 0, 0, bj) }
	ptr := func(t time.Time) *time.Time { return &t }
	return &Case{
		Now: at(4, 9), Deadline: at(7, 18),
		OrderID: "O1001", SKU: "SKU-01", Quantity: 1, Warehouse: "A", Address: "the original delivery address",
		MaxExtraCost: 20,
		Stock: map[string]WarehouseStock{
			"A": {Warehouse: "A", SKU: "SKU-01", Available: 0, RestockAt: ptr(at(8, 10)), EarliestArrival: ptr(at(10, 18))},
			"B": {Warehouse: "B", SKU: "SKU-01", Available: 4, SwitchAllowed: true},
		},
		Quotes: []ShippingQuote{
			{Warehouse: "A", Method: "standard", Arrives: at(10, 18), ExtraCost: 0},
			{Warehouse: "B", Method: "express", Arrives: at(6, 18), ExtraCost: 35, ConfirmBy: at(4, 16)},
			{Warehouse: "B", Method: "standard", Arrives: at(7, 16), ExtraCost: 10, ConfirmBy: at(4, 16)},
		},
	}
}

// Goal is the user's question.
func (c *Case) Goal() string {
	return fmt.Sprintf("Can order %s arrive before %s? If not, find alternatives.", c.OrderID, c.Label(c.Deadline))
}

// Constraints are the user's constraints, verbatim.
func (c *Case) Constraints() []string {
	return []string{
		"same item, quantity and address",
		"another warehouse or shipping method is allowed",
		fmt.Sprintf("extra total cost at most %g", c.MaxExtraCost),
		"query only: change nothing",
	}
}

// Request is the plan request for the case.
func (c *Case) Request() nodes.PlanRequest {
	return nodes.PlanRequest{Goal: c.Goal(), Constraints: c.Constraints()}
}

// Label renders a time relative to the case's Tuesday: "Friday 16:00",
// "next Monday 18:00".
func (c *Case) Label(t time.Time) string {
	t = t.In(c.Now.Location())
	y, m, d := c.Now.Date()
	weekStart := time.Date(y, m, d-(int(c.Now.Weekday())+6)%7, 0, 0, 0, 0, c.Now.Location()) // Monday 00:00
	prefix := ""
	if !t.Before(weekStart.AddDate(0, 0, 7)) {
		prefix = "next "
	}
	return prefix + t.Format("Monday 15:04")
}

// Calls returns how many times the named tool was called.
func (c *Case) Calls(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[tool]
}

func (c *Case) count(tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[tool]++
}

// Names of the case's tools.
const (
	ToolOrderLookup   = "order_lookup"
	ToolStockCheck    = "stock_check"
	ToolShippingQuote = "shipping_quote"
	ToolChangeOrder   = "change_order"
)

// Tools returns the simulated tools: order_lookup {"order_id"},
// stock_check {"warehouse","sku"}, shipping_quote {"order_id","warehouse","method"}
// — all read-only — and change_order, which has side effects and which a
// query-only run must never call.
func (c *Case) Tools() []tools.Tool {
	type args struct {
		OrderID   string `json:"order_id"`
		Warehouse string `json:"warehouse"`
		SKU       string `json:"sku"`
		Method    string `json:"method"`
	}
	parse := func(in string) (args, error) {
		var a args
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			return a, fmt.Errorf("%w: want a JSON object: %v", plan.ErrBadInput, err)
		}
		return a, nil
	}
	jsonOut := func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	}
	return []tools.Tool{
		tool.Func{ToolName: ToolOrderLookup, ToolDescription: `Look up an order. Input: {"order_id": "..."}. Returns item, quantity, address, warehouse and status.`,
			Fn: func(_ context.Context, in string) (string, error) {
				c.count(ToolOrderLookup)
				a, err := parse(in)
				if err != nil {
					return "", err
				}
				if a.OrderID != c.OrderID {
					return "", fmt.Errorf("order %q not found", a.OrderID)
				}
				return jsonOut(map[string]any{"order_id": c.OrderID, "sku": c.SKU, "quantity": c.Quantity, "address": c.Address, "warehouse": c.Warehouse, "status": "not shipped"})
			}},
		tool.Func{ToolName: ToolStockCheck, ToolDescription: `Check a warehouse's stock of an item. Input: {"warehouse": "...", "sku": "..."}. Returns available units, restock time and earliest arrival if it cannot ship now.`,
			Fn: func(_ context.Context, in string) (string, error) {
				c.count(ToolStockCheck)
				a, err := parse(in)
				if err != nil {
					return "", err
				}
				s, ok := c.Stock[a.Warehouse]
				if !ok || a.SKU != c.SKU {
					return "", fmt.Errorf("%w: no warehouse %q with item %q", plan.ErrBadInput, a.Warehouse, a.SKU)
				}
				return jsonOut(s)
			}},
		tool.Func{ToolName: ToolShippingQuote, ToolDescription: `Quote shipping an order from a warehouse by a method (standard or express). Input: {"order_id": "...", "warehouse": "...", "method": "..."}. Returns arrival, extra cost and the time by which to confirm.`,
			Fn: func(_ context.Context, in string) (string, error) {
				c.count(ToolShippingQuote)
				a, err := parse(in)
				if err != nil {
					return "", err
				}
				for _, q := range c.Quotes {
					if q.Warehouse == a.Warehouse && q.Method == a.Method && a.OrderID == c.OrderID {
						return jsonOut(q)
					}
				}
				return "", fmt.Errorf("%w: no quote for order %q from %q by %q", plan.ErrBadInput, a.OrderID, a.Warehouse, a.Method)
			}},
		tool.Func{ToolName: ToolChangeOrder, ToolDescription: `Change an order's warehouse or shipping method. Has side effects.`, Mutates: true,
			Fn: func(_ context.Context, in string) (string, error) {
				c.count(ToolChangeOrder)
				return `{"changed": true}`, nil
			}},
	}
}

// Template is the nodes.TemplatePlanner template for the case's goal: look up the
// order → check stock at its warehouse → arrange (quote) delivery from that
// warehouse → answer. It matches goals naming the order and asking about arrival.
func (c *Case) Template() nodes.PlanTemplate {
	return nodes.PlanTemplate{
		Name: "delivery-check",
		Match: func(goal string) bool {
			g := strings.ToLower(goal)
			return strings.Contains(g, strings.ToLower(c.OrderID)) &&
				(strings.Contains(g, "arriv") || strings.Contains(g, "deliver") || strings.Contains(g, "到"))
		},
		Build: func(req nodes.PlanRequest) (plan.Plan, error) {
			return plan.Plan{Goal: req.Goal, Steps: []plan.Step{
				{ID: "order", Description: "Look up the order: item, quantity, address and warehouse", Tool: ToolOrderLookup,
					Input: json.RawMessage(fmt.Sprintf(`{"order_id":%q}`, c.OrderID))},
				{ID: "stock_a", Description: "Check stock at the order's warehouse and when it could arrive", Tool: ToolStockCheck,
					Input: json.RawMessage(`{"warehouse":"{{order.result.warehouse}}","sku":"{{order.result.sku}}"}`), DependsOn: []string{"order"}},
				{ID: "deliver_a", Description: "Arrange delivery from the order's warehouse: quote standard shipping", Tool: ToolShippingQuote,
					Input:     json.RawMessage(`{"order_id":"{{order.result.order_id}}","warehouse":"{{order.result.warehouse}}","method":"standard"}`),
					DependsOn: []string{"stock_a"}},
				{ID: "answer", Description: "Answer: can it arrive before the deadline, with the evidence", DependsOn: []string{"deliver_a"}},
			}}, nil
		},
	}
}

// Checker judges the case's steps: a stock check without enough units whose
// earliest arrival is after the deadline shows the route is blocked; a quote
// is a candidate or excluded (late, or over the cost cap).
func (c *Case) Checker() nodes.Checker {
	return func(step plan.Step, output string) nodes.Verdict {
		switch step.Tool {
		case ToolStockCheck:
			var s WarehouseStock
			if json.Unmarshal([]byte(output), &s) != nil {
				return nodes.Verdict{}
			}
			if s.Available >= c.Quantity {
				v := nodes.Verdict{Conclusion: fmt.Sprintf("warehouse %s has %d × %s in stock", s.Warehouse, s.Available, s.SKU)}
				if s.SwitchAllowed {
					v.Conclusion += "; the order may be switched to it, same address"
				}
				v.Evidence = []string{fmt.Sprintf("stock_check %s: %d available", s.Warehouse, s.Available)}
				return v
			}
			ev := fmt.Sprintf("stock_check %s: %d available", s.Warehouse, s.Available)
			reason := fmt.Sprintf("warehouse %s has no stock of %s (%d available)", s.Warehouse, s.SKU, s.Available)
			if s.RestockAt != nil {
				ev += ", restock " + c.Label(*s.RestockAt)
				reason += ", restocks " + c.Label(*s.RestockAt)
			}
			if s.EarliestArrival != nil {
				ev += ", earliest arrival " + c.Label(*s.EarliestArrival)
				reason += ", so delivery would be " + c.Label(*s.EarliestArrival)
			}
			if s.EarliestArrival == nil || s.EarliestArrival.After(c.Deadline) {
				return nodes.Verdict{Blocked: true,
					Reason:     reason + ", after the deadline " + c.Label(c.Deadline),
					Impact:     fmt.Sprintf("arranging delivery from warehouse %s has lost its premise; evaluate other warehouses", s.Warehouse),
					Conclusion: fmt.Sprintf("warehouse %s cannot deliver before %s", s.Warehouse, c.Label(c.Deadline)),
					Evidence:   []string{ev}}
			}
			return nodes.Verdict{Conclusion: reason, Evidence: []string{ev}}
		case ToolShippingQuote:
			var q ShippingQuote
			if json.Unmarshal([]byte(output), &q) != nil {
				return nodes.Verdict{}
			}
			ev := fmt.Sprintf("shipping_quote %s %s: arrives %s, extra %g", q.Warehouse, q.Method, c.Label(q.Arrives), q.ExtraCost)
			if !q.ConfirmBy.IsZero() {
				ev += ", confirm by " + c.Label(q.ConfirmBy)
			}
			return nodes.Verdict{Conclusion: c.judge(q), Evidence: []string{ev}}
		}
		return nodes.Verdict{}
	}
}

// judge says whether a quote meets the deadline and the cost cap.
func (c *Case) judge(q ShippingQuote) string {
	switch {
	case q.Arrives.After(c.Deadline):
		return fmt.Sprintf("excluded: arrives %s, after the deadline %s", c.Label(q.Arrives), c.Label(c.Deadline))
	case q.ExtraCost > c.MaxExtraCost:
		return fmt.Sprintf("excluded: extra cost %g > %g (the cap)", q.ExtraCost, c.MaxExtraCost)
	}
	return fmt.Sprintf("candidate: arrives %s, extra %g", c.Label(q.Arrives), q.ExtraCost)
}

// ReplanTemplate is the rule-based partial replan (use it as
// nodes.PartialReplan.Template): when a stock check shows the route is blocked, the
// completed steps stay and the rest is replaced by evaluating every other
// warehouse — stock, express quote, standard quote, all independent so they
// run in parallel — and an answer step. Other triggers get nodes.ErrNoFix.
func (c *Case) ReplanTemplate(req nodes.ReplanRequest) ([]plan.Step, error) {
	blocked, _ := req.Plan.Step(req.Trigger.StepID)
	if req.Trigger.Kind != nodes.TriggerBlocked || blocked.Tool != ToolStockCheck {
		return nil, fmt.Errorf("%w: the delivery template handles a blocked stock check only", nodes.ErrNoFix)
	}
	var order plan.Step
	for _, s := range req.Plan.Steps {
		if s.Tool == ToolOrderLookup && s.Status == plan.StatusCompleted {
			order = s
		}
	}
	if order.ID == "" {
		return nil, fmt.Errorf("%w: no completed order lookup to build on", nodes.ErrNoFix)
	}
	var from struct {
		Warehouse string `json:"warehouse"`
	}
	_ = json.Unmarshal([]byte(blocked.Result), &from)
	var whs []string
	for w := range c.Stock {
		if w != from.Warehouse {
			whs = append(whs, w)
		}
	}
	slices.Sort(whs)
	ref := func(field string) string { return fmt.Sprintf("{{%s.result.%s}}", order.ID, field) }
	var steps []plan.Step
	var all []string
	for _, w := range whs {
		id := strings.ToLower(w)
		steps = append(steps,
			plan.Step{ID: id + "_stock", Description: fmt.Sprintf("Check stock at warehouse %s", w), Tool: ToolStockCheck,
				Input: mustJSON(map[string]string{"warehouse": w, "sku": ref("sku")}), DependsOn: []string{order.ID}},
			plan.Step{ID: id + "_express", Description: fmt.Sprintf("Quote express shipping from warehouse %s", w), Tool: ToolShippingQuote,
				Input: mustJSON(map[string]string{"order_id": ref("order_id"), "warehouse": w, "method": "express"}), DependsOn: []string{order.ID}},
			plan.Step{ID: id + "_standard", Description: fmt.Sprintf("Quote standard shipping from warehouse %s", w), Tool: ToolShippingQuote,
				Input: mustJSON(map[string]string{"order_id": ref("order_id"), "warehouse": w, "method": "standard"}), DependsOn: []string{order.ID}},
		)
		all = append(all, id+"_stock", id+"_express", id+"_standard")
	}
	id := "recommend"
	for req.Plan.Index(id) >= 0 {
		id += "_"
	}
	steps = append(steps, plan.Step{ID: id, Description: "Answer: the verdict on the original route and the recommended alternative", DependsOn: all})
	return steps, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
