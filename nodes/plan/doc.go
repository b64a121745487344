// Package plan is the plan model of the plan-and-execute agent in package
// nodes: plain values and pure functions, with no model, graph or tool
// call, so every value can live in checkpointed state (all types marshal to
// JSON) and be tested on its own.
//
// A Plan is a goal, the user's constraints and Steps. A Step names a tool
// (langchaingo tools.Tool), a JSON input that may reference earlier results
// ({{step_1.result}}, {{step_1.result.field.sub}}, see ResolveInput), its
// dependencies, and records its status, result, error and evidence. A step
// without a tool is a synthesis step (the final answer). Plan.Ready lists
// the steps whose dependencies are completed or skipped — the ones an
// execute superstep may run in parallel; a step that needs a skipped step's
// result fails on the reference.
//
// Parse reads a model's reply (code fences, prose around the JSON, an array
// or an object; invalid JSON is a *ParseError with line and column); Schema
// is the JSON Schema a model is asked to follow, derived from a Go type. Validate lists every
// problem (*ValidationError): unknown tool, duplicate or missing id, missing
// dependency, self or forward reference, cycle, bad input, a placeholder
// that looks like a reference but is not one ({{step_1_result}}, the seed
// documents' syntax: write {{step_1.result}}). A Guard checks a plan against
// a user constraint besides validation: ReadOnlyGuard refuses steps whose
// tool reports side effects (SideEffecter). TopoOrder is execution order;
// ScoreOf grades completeness, executability and dependencies.
//
// ClassifyError maps a tool's error to an ErrorKind, so a replanner can pick
// a strategy.
package plan
