package delivery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
)

// Responder is the case's template responder: the verdict on the original
// warehouse with its evidence — when it delivers in time, by which method,
// when and at what cost, and that is the answer — else each alternative
// with why it is excluded or kept and the recommendation (cheapest
// candidate, then earliest) with cost, arrival and the deadline to confirm;
// what is missing, if anything; and, from the audit log, whether anything
// was changed (no call of a tool with side effects) or what was.
func (c *Case) Responder() nodes.TemplateResponder {
	return nodes.TemplateResponder{Format: c.answer}
}

// quoteStep is a completed quote step with the quote it returned.
type quoteStep struct {
	q    ShippingQuote
	step plan.Step
}

func (c *Case) answer(req nodes.RespondRequest) (string, error) {
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
