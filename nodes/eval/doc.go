// Package eval runs a compiled plan-and-execute agent (nodes.NewAgent) over
// a set of cases and reports how it did: success rate, mean time, steps,
// replans, model and tool calls, and tokens.
//
//	rep, err := eval.Run(ctx, app, []eval.Case{{Name: "o1001", Goal: goal, Check: check}})
//
// A case succeeds when its Check accepts the final state (without a Check:
// when the response is complete). A run's error is a failed case, not an
// error of Run.
package eval
