// Package delivery is the seed documents' delivery scenario, for the tests
// of package nodes and for examples/planexecute: can order O1001 arrive
// before Friday 18:00, and if not, what are the alternatives?
//
// Case holds the scenario's data (Beijing time, the week of Tuesday
// 4 June 2024) and gives the simulated tools that answer from it
// (order_lookup, stock_check, shipping_quote, all read-only, and
// change_order, which a query-only run must never call), the template plan,
// the checker that reads a blocked route from a stock check, the rule-based
// partial replan, the responder, and AgentConfig, which assembles them into
// the offline agent. It is example data, not library API: it lives under
// internal so that what `go doc ./nodes` shows is what a user builds with.
package delivery
