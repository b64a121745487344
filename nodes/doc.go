// Package nodes holds the building blocks of a plan-and-execute agent on
// langchaingo: the plan model and the decision logic that the graph nodes
// planner → execute → replan → respond call. Everything here is plain Go:
// pure functions over plain values where possible, taking a context.Context
// where a model or a tool is called, so it can be tested without a graph and
// every value can live in checkpointed state (all types marshal to JSON).
//
// # Plan
//
// A Plan is a goal, the user's constraints and Steps. A Step names a tool
// (langchaingo tools.Tool), a JSON input that may reference earlier results
// ({{step_1.result}}, {{step_1.result.field.sub}}, see ResolveInput), its
// dependencies, and records its status, result, error and evidence. A step
// without a tool is a synthesis step (the final answer). Plan.Ready lists the
// steps whose dependencies are completed — the ones an execute superstep may
// run in parallel.
//
// # Planning
//
// ParsePlan reads a model's reply (code fences, prose around the JSON, an
// array or an object; invalid JSON is a *ParseError with line and column).
// Validate lists every problem (*PlanError): unknown tool, duplicate or
// missing id, missing dependency, self or forward reference, cycle, bad
// input. ScorePlan grades completeness, executability and dependencies.
// LLMPlanner asks a model and re-asks with the problems listed;
// TemplatePlanner matches the goal against hand-written plans with no model
// call; AdaptivePlanner tries templates first.
//
// # Execution
//
// Executor.Run runs one step: resolves references, calls the tool (with the
// failure policy: skip, retry, replan), records an AuditRecord per call, and
// returns a StepOutcome that tells "the tool failed" (status failed, Err)
// from "the step succeeded and showed the route is blocked" (Blocked,
// BlockReason, Impact) — read from the tool's JSON output or a Checker.
// Plan.Apply records outcomes on the plan.
//
// # Replanning
//
// After each round, Decide returns continue, revise, finish, blocked or stop
// (a Budget spent: the StopReason names it). Revise runs a strategy —
// IncrementalFix (no model call), PartialReplan (keeps completed work,
// replaces the rest, by template or model), FullReplan, or AdaptiveReplanner
// choosing among them — and enforces the invariants with CheckRevision:
// completed steps and their evidence are never dropped, the goal and the
// user's constraints never change, and the revision passes Validate and the
// Guards (such as ReadOnlyGuard for "query only"). ReplanRound does both.
//
// # Answer
//
// TemplateResponder and LLMResponder write the answer from results and
// evidence; when the run ended early they say what was done, what is missing
// and why.
//
// DeliveryCase is the seed documents' delivery question as simulated tools,
// with its template plan, checker, rule-based replan and responder.
package nodes
