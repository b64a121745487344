package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/tools"
)

// DeliveryCase is the seed documents' delivery question, simulated: on a
// Tuesday morning a user asks whether order O1001 (1 × SKU-01, shipping from
// warehouse A) can arrive before Friday 18:00, and if not, for alternatives
// with the same item, quantity and address — another warehouse or shipping
// method allowed, extra cost at most 20, query only, change nothing.
//
// Its tools answer from the case's data and count their calls; its template
// plan, checker, replan template and responder are the rule-based agent for it.
type DeliveryCase struct {
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

// NewDeliveryCase returns the case with the seed documents' data (Beijing time,
// the week of Tuesday 4 June 2024).
func NewDeliveryCase() *DeliveryCase {
	bj := time.FixedZone("CST", 8*3600)
	at := func(day, hour int) time.Time { return time.Date(2024, 6, day, hour, 0, 0, 0, bj) }
	ptr := func(t time.Time) *time.Time { return &t }
	return &DeliveryCase{
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
func (c *DeliveryCase) Goal() string {
	return fmt.Sprintf("Can order %s arrive before %s? If not, find alternatives.", c.OrderID, c.Label(c.Deadline))
}

// Constraints are the user's constraints, verbatim.
func (c *DeliveryCase) Constraints() []string {
	return []string{
		"same item, quantity and address",
		"another warehouse or shipping method is allowed",
		fmt.Sprintf("extra total cost at most %g", c.MaxExtraCost),
		"query only: change nothing",
	}
}

// Request is the plan request for the case.
func (c *DeliveryCase) Request() PlanRequest {
	return PlanRequest{Goal: c.Goal(), Constraints: c.Constraints()}
}

// Label renders a time relative to the case's Tuesday: "Friday 16:00",
// "next Monday 18:00".
func (c *DeliveryCase) Label(t time.Time) string {
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
func (c *DeliveryCase) Calls(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[tool]
}

func (c *DeliveryCase) count(tool string) {
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
func (c *DeliveryCase) Tools() []tools.Tool {
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
		FuncTool{ToolName: ToolOrderLookup, ToolDescription: `Look up an order. Input: {"order_id": "..."}. Returns item, quantity, address, warehouse and status.`,
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
		FuncTool{ToolName: ToolStockCheck, ToolDescription: `Check a warehouse's stock of an item. Input: {"warehouse": "...", "sku": "..."}. Returns available units, restock time and earliest arrival if it cannot ship now.`,
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
		FuncTool{ToolName: ToolShippingQuote, ToolDescription: `Quote shipping an order from a warehouse by a method (standard or express). Input: {"order_id": "...", "warehouse": "...", "method": "..."}. Returns arrival, extra cost and the time by which to confirm.`,
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
		FuncTool{ToolName: ToolChangeOrder, ToolDescription: `Change an order's warehouse or shipping method. Has side effects.`, Mutates: true,
			Fn: func(_ context.Context, in string) (string, error) {
				c.count(ToolChangeOrder)
				return `{"changed": true}`, nil
			}},
	}
}

// Template is the TemplatePlanner template for the case's goal: look up the
// order → check stock at its warehouse → arrange (quote) delivery from that
// warehouse → answer. It matches goals naming the order and asking about arrival.
func (c *DeliveryCase) Template() PlanTemplate {
	return PlanTemplate{
		Name: "delivery-check",
		Match: func(goal string) bool {
			g := strings.ToLower(goal)
			return strings.Contains(g, strings.ToLower(c.OrderID)) &&
				(strings.Contains(g, "arriv") || strings.Contains(g, "deliver") || strings.Contains(g, "到"))
		},
		Build: func(req PlanRequest) (plan.Plan, error) {
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
func (c *DeliveryCase) Checker() Checker {
	return func(step plan.Step, output string) Verdict {
		switch step.Tool {
		case ToolStockCheck:
			var s WarehouseStock
			if json.Unmarshal([]byte(output), &s) != nil {
				return Verdict{}
			}
			if s.Available >= c.Quantity {
				v := Verdict{Conclusion: fmt.Sprintf("warehouse %s has %d × %s in stock", s.Warehouse, s.Available, s.SKU)}
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
				return Verdict{Blocked: true,
					Reason:     reason + ", after the deadline " + c.Label(c.Deadline),
					Impact:     fmt.Sprintf("arranging delivery from warehouse %s has lost its premise; evaluate other warehouses", s.Warehouse),
					Conclusion: fmt.Sprintf("warehouse %s cannot deliver before %s", s.Warehouse, c.Label(c.Deadline)),
					Evidence:   []string{ev}}
			}
			return Verdict{Conclusion: reason, Evidence: []string{ev}}
		case ToolShippingQuote:
			var q ShippingQuote
			if json.Unmarshal([]byte(output), &q) != nil {
				return Verdict{}
			}
			ev := fmt.Sprintf("shipping_quote %s %s: arrives %s, extra %g", q.Warehouse, q.Method, c.Label(q.Arrives), q.ExtraCost)
			if !q.ConfirmBy.IsZero() {
				ev += ", confirm by " + c.Label(q.ConfirmBy)
			}
			return Verdict{Conclusion: c.judge(q), Evidence: []string{ev}}
		}
		return Verdict{}
	}
}

// judge says whether a quote meets the deadline and the cost cap.
func (c *DeliveryCase) judge(q ShippingQuote) string {
	switch {
	case q.Arrives.After(c.Deadline):
		return fmt.Sprintf("excluded: arrives %s, after the deadline %s", c.Label(q.Arrives), c.Label(c.Deadline))
	case q.ExtraCost > c.MaxExtraCost:
		return fmt.Sprintf("excluded: extra cost %g > %g (the cap)", q.ExtraCost, c.MaxExtraCost)
	}
	return fmt.Sprintf("candidate: arrives %s, extra %g", c.Label(q.Arrives), q.ExtraCost)
}

// ReplanTemplate is the rule-based partial replan (use it as
// PartialReplan.Template): when a stock check shows the route is blocked, the
// completed steps stay and the rest is replaced by evaluating every other
// warehouse — stock, express quote, standard quote, all independent so they
// run in parallel — and an answer step. Other triggers get ErrNoFix.
func (c *DeliveryCase) ReplanTemplate(req ReplanRequest) ([]plan.Step, error) {
	blocked, _ := req.Plan.Step(req.Trigger.StepID)
	if req.Trigger.Kind != TriggerBlocked || blocked.Tool != ToolStockCheck {
		return nil, fmt.Errorf("%w: the delivery template handles a blocked stock check only", ErrNoFix)
	}
	var order plan.Step
	for _, s := range req.Plan.Steps {
		if s.Tool == ToolOrderLookup && s.Status == plan.StatusCompleted {
			order = s
		}
	}
	if order.ID == "" {
		return nil, fmt.Errorf("%w: no completed order lookup to build on", ErrNoFix)
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
	b, err := text.CompactJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Responder is the case's template responder: the verdict on the original
// warehouse with its evidence — when it delivers in time, by which method,
// when and at what cost, and that is the answer — else each alternative
// with why it is excluded or kept and the recommendation (cheapest
// candidate, then earliest) with cost, arrival and the deadline to confirm;
// what is missing, if anything; and, from the audit log, whether anything
// was changed (no call of a tool with side effects) or what was.
func (c *DeliveryCase) Responder() TemplateResponder {
	return TemplateResponder{Format: c.answer}
}

// quoteStep is a completed quote step with the quote it returned.
type quoteStep struct {
	q    ShippingQuote
	step plan.Step
}

func (c *DeliveryCase) answer(req RespondRequest) (string, error) {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	stock := map[string]WarehouseStock{}
	var quotes []quoteStep
	var original *plan.Step
	for _, s := range req.Plan.Steps {
		if s.Status != plan.StatusCompleted {
			continue
		}
		switch s.Tool {
		case ToolStockCheck:
			var w WarehouseStock
			if json.Unmarshal([]byte(s.Result), &w) == nil {
				stock[w.Warehouse] = w
				if w.Warehouse == c.Warehouse {
					original = &s
				}
			}
		case ToolShippingQuote:
			var q ShippingQuote
			if json.Unmarshal([]byte(s.Result), &q) == nil {
				quotes = append(quotes, quoteStep{q, s})
			}
		}
	}
	// verdict judges a quote: no stock at its warehouse, or c.judge.
	verdict := func(q ShippingQuote) string {
		if w, ok := stock[q.Warehouse]; ok && w.Available < c.Quantity {
			return fmt.Sprintf("excluded: warehouse %s has no stock", q.Warehouse)
		}
		return c.judge(q)
	}
	better := func(q ShippingQuote, best *ShippingQuote) bool {
		return best == nil || q.ExtraCost < best.ExtraCost || (q.ExtraCost == best.ExtraCost && q.Arrives.Before(best.Arrives))
	}
	line("Order %s (%d × %s) from warehouse %s, deadline %s.", c.OrderID, c.Quantity, c.SKU, c.Warehouse, c.Label(c.Deadline))
	if original != nil {
		w := stock[c.Warehouse]
		if w.Available >= c.Quantity {
			line("Warehouse %s has stock (%d).", c.Warehouse, w.Available)
		} else {
			verdict := fmt.Sprintf("Warehouse %s cannot make it: no stock (%d available)", c.Warehouse, w.Available)
			if w.RestockAt != nil {
				verdict += ", restock " + c.Label(*w.RestockAt)
			}
			if w.EarliestArrival != nil {
				verdict += ", so delivery would be " + c.Label(*w.EarliestArrival)
			}
			line("%s, after %s.", verdict, c.Label(c.Deadline))
		}
		for _, e := range original.Evidence {
			line("  Evidence: %s", e)
		}
	}
	// The order's own warehouse: a quote in time and within the cap is the answer.
	var onTime *ShippingQuote
	var others []quoteStep
	for _, qs := range quotes {
		q := qs.q
		if q.Warehouse != c.Warehouse {
			others = append(others, qs)
			continue
		}
		v := verdict(q)
		if strings.HasPrefix(v, "candidate") {
			line("Yes: the order arrives in time from warehouse %s, %s shipping: arrives %s, before the deadline %s, extra %g (estimated).",
				q.Warehouse, q.Method, c.Label(q.Arrives), c.Label(c.Deadline), q.ExtraCost)
			if better(q, onTime) {
				onTime = &q
			}
		} else {
			line("Warehouse %s, %s shipping: arrives %s, extra %g — %s.", q.Warehouse, q.Method, c.Label(q.Arrives), q.ExtraCost, v)
		}
		for _, e := range qs.step.Evidence {
			line("  Evidence: %s", e)
		}
	}
	var best *ShippingQuote
	if len(others) > 0 {
		line("Alternatives (same item, quantity and address; extra cost at most %g):", c.MaxExtraCost)
	}
	for _, qs := range others {
		q := qs.q
		v := verdict(q)
		line("- warehouse %s, %s: arrives %s, extra %g — %s", q.Warehouse, q.Method, c.Label(q.Arrives), q.ExtraCost, v)
		if _, checked := stock[q.Warehouse]; strings.HasPrefix(v, "candidate") && checked && better(q, best) {
			best = &q
		}
	}
	early, why := req.Early()
	switch {
	case onTime != nil:
		line("No change is needed: keep the order as it is.")
	case best != nil:
		line("Recommendation: switch to warehouse %s, %s shipping: extra %g, arrives %s (estimated; %d in stock there).",
			best.Warehouse, best.Method, best.ExtraCost, c.Label(best.Arrives), stock[best.Warehouse].Available)
		if !best.ConfirmBy.IsZero() {
			line("Confirm by %s; re-check stock and the quote when confirming.", c.Label(best.ConfirmBy))
		}
	case !early:
		line("No alternative checked meets the deadline and the cost cap.")
	}
	switch {
	case early:
		line("Stopped early: %s.", why)
	case !req.Complete():
		line("Some checks failed and were skipped, so this answer may be incomplete:")
	}
	if !req.Complete() {
		for _, m := range req.Missing() {
			line("  Not done: %s", m)
		}
	}
	if changed := req.Audit.WithSideEffects(c.Tools()); len(changed) > 0 {
		for _, r := range changed {
			line("Warning: step %s called %s (%s): the order may have been changed.", r.StepID, r.Tool, r.Status)
		}
	} else {
		line("Nothing was changed: this was a query only; the order was not modified and no stock was reserved.")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
