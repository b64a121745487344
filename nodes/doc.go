// Package nodes is a plan-and-execute agent on langchaingo, built as an
// ordinary graph.StateGraph, and the building blocks it is made of: the plan
// model and the decision logic that its nodes planner → execute → replan →
// respond call.
//
// # The agent
//
// NewAgent builds the graph from an AgentConfig (a Planner, any langchaingo
// tools.Tool, a Replanner, a Responder, a Budget, a FailurePolicy; a
// llms.Model fills in the parts left out):
//
//	start → planner ⇒ execute → replan ⇒ execute | respond → end
//
// The planner plans for the goal, checks the plan whatever Planner made it
// (Validate against the tools, and AgentConfig.Guards: nothing runs when
// either refuses it) and marks the ready steps running; a
// FanOut router sends each running step to execute as its own task
// (graph.SendTo with the step in AgentState.Current), so independent steps
// run in parallel in one superstep. Each execute task appends its
// StepOutcome to PastSteps and its AuditRecords to Audit, and adds what it
// spent to Usage; the tasks of a round join into one replan run, which
// records the outcomes on the plan, decides with ReplanRound (continue,
// revise, finish, blocked, or a budget stop) and fans the next ready steps
// out, or goes to respond. The responder's answer names any stop or block.
//
// Budget.MaxToolCalls holds within a round too: a round starts, in plan
// order, no more steps that call tools than there are calls left, and each
// makes at most its share of them. So does Budget.MaxModelCalls for the
// ReAct steps, the only steps that call the model: a round starts no more
// of them than there are model calls left, and each makes at most its
// share. A model call the budget refuses (ErrModelBudget) is not made and
// not counted. Budget.MaxWall is running time
// (Usage.Wall, checkpointed with the state): a thread that sits interrupted
// between a run and its resume is not charged for the wait. It is checked
// before every tool call and ReAct model call, retries included, not only
// between rounds. A spent MaxToolCalls or MaxModelCalls stops the run only
// when the work left needs it: the tool-less steps still run, and a
// TemplateResponder still answers. The guards hold inside ReAct steps too:
// a tool a guard refuses is not offered to the model, and each call is
// checked with its input, a call a guard refuses not being made.
//
// The state, AgentState, is declared field by field (StatePlan,
// StatePastSteps, …, AgentSchema) and marshals to JSON, so the agent can be
// compiled with a checkpointer, paused (graph.InterruptAfter(NodeReplan)),
// inspected, and resumed on its thread without asking the model again or
// calling a tool again for work already done. Agent.Graph returns the
// builder so users can add nodes and edges before Agent.Compile. NewInput
// makes a run's input; AgentState.Answer reads the answer. WithReAct runs
// steps described in words (no tool) with ReActExecutor, a small tool-calling
// loop bounded per step. Evaluate runs a compiled agent over cases and
// reports success rate, time, steps, replans, model and tool calls and
// tokens.
//
// Everything below the agent is plain Go:
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
// steps whose dependencies are completed or skipped — the ones an execute
// superstep may run in parallel; a step that needs a skipped step's result
// fails on the reference.
//
// # Planning
//
// ParsePlan reads a model's reply (code fences, prose around the JSON, an
// array or an object; invalid JSON is a *ParseError with line and column).
// Validate lists every problem (*PlanError): unknown tool, duplicate or
// missing id, missing dependency, self or forward reference, cycle, bad
// input, a placeholder that looks like a reference but is not one
// ({{step_1_result}}, the seed documents' syntax: write {{step_1.result}}). ScorePlan grades completeness, executability and dependencies.
// LLMPlanner asks a model and re-asks with the problems listed, the
// objections of the request's guards (PlanRequest.Guards, the agent's
// AgentConfig.Guards) included;
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
// (a Budget spent: the StopReason names it); a round that showed the route
// is blocked is never a finish, even when it completed the plan. Progressed
// does not count a step that repeats finished work (same tool, resolved
// input and evidence) as progress; a round that only repeats it
// (OnlyRepeated: a FullReplan's new steps redoing the kept lookups) does
// not count against Budget.MaxRoundsWithoutProgress either. Revise runs a strategy —
// IncrementalFix (no model call), PartialReplan (keeps completed work,
// replaces the rest, by template or model), FullReplan, or AdaptiveReplanner
// choosing among them — and enforces the invariants with CheckRevision:
// completed steps and their evidence are never dropped, the goal and the
// user's constraints never change, and the revision passes Validate and the
// Guards (such as ReadOnlyGuard for "query only"). AdaptiveReplanner checks
// each strategy's revision as it goes and, when one has no fix or is
// rejected, tries the next, recording why in ReplanInfo.Failed; the run is
// blocked only when every strategy failed. ReplanRound does both.
//
// # Answer
//
// TemplateResponder and LLMResponder write the answer from results and
// evidence; when the run ended early, or steps failed and were skipped, they
// say what was done, what is missing and why (Response.Complete is false).
// The agent's respond node adds the stop and the skipped steps to any
// answer that leaves them out.
//
// DeliveryCase is the seed documents' delivery question as simulated tools,
// with its template plan, checker, rule-based replan and responder;
// DeliveryCase.AgentConfig assembles them into the offline agent.
package nodes
