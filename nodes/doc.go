// Package nodes is a plan-and-execute agent on langchaingo, built as an
// ordinary graph.StateGraph, and the building blocks its nodes planner →
// execute → replan → respond call. The plan model they work on (plans,
// parsing, references, validation, guards, scores, error kinds) is package
// nodes/plan.
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
// (plan.Validate against the tools, and AgentConfig.Guards: nothing runs
// when either refuses it) and marks the ready steps running; a FanOut
// router sends each running step to execute as its own task (graph.SendTo
// with the step in AgentState.Current), so independent steps run in
// parallel in one superstep (WithRoundByRound). By default a round is one
// execute task instead, which starts each step as soon as the steps it
// depends on complete (LLMCompiler's task fetching; WithEagerSteps bounds
// how many at once), saving each step's outcome as it completes
// (graph.Durable), so a resume never runs a finished step again. Each
// execute task appends its StepOutcome to PastSteps and its AuditRecords
// to Audit, and adds what it spent to Usage; a round joins into one replan
// run, which records the outcomes on the plan, decides (continue, revise,
// finish, blocked, or a budget stop; see Replanning) and fans the next
// ready steps out, or goes to respond. The responder's
// answer names any stop or block. When the plan's final step wrote the
// answer ({"answer": "…"} with references, plan.Plan.Answer) and every
// step completed, the respond node gives it without a model call.
//
// Budget bounds a run, and its documentation states the rules: hard limits
// on tool and model calls within a round too, each step's share of what is
// left, running time that does not count a pause, and a spent counter that
// stops the run only when the work left needs it. The guards hold inside
// ReAct steps too: a tool a guard refuses is not offered to the model, and
// each call is checked with its input, a call a guard refuses not being
// made.
//
// The state, AgentState, has a field of the graph's schema per struct field
// (Agent.Schema) and marshals to JSON, so the agent can be compiled with a
// checkpointer, paused (graph.InterruptAfter(NodeReplan)),
// inspected, and resumed on its thread without asking the model again or
// calling a tool again for work already done. Agent.Graph returns the
// builder so users can add nodes and edges before Agent.Compile (a node
// writes the state with Agent.Schema's Edit). NewInput makes a run's
// input; AgentState.Answer reads the answer. WithReAct runs steps
// described in words (no tool) with ReActExecutor, a small tool-calling
// loop bounded per step. Package nodes/eval runs a compiled agent over
// cases and reports success rate, time, steps, replans, model and tool
// calls and tokens.
//
// Real models fail: NewAgent wraps the model in a ResilientModel (retries
// with backoff for rate limits, server and connection errors, honouring
// Retry-After; a per-attempt timeout; HTTPClient lets a provider client's
// status codes and headers through), every attempt counting against the
// budget; a model that refuses JSON mode, which the default planner and
// replanner ask every model for, is asked again without it. WithToolTimeout
// and WithStepTimeout (and a graph.WithTimeout on the execute node) fail
// the step, kind timeout, for the replanner to see, rather than the run;
// the wall-time budget cancels a call under way, and once it has passed no
// model call is made. No prompt holds a tool output whole past a cap
// (8,000 bytes by default; CapOutput, WithOutputCap); the state keeps it
// whole. WithLedger runs the calls of tools with side effects through the
// effect ledger: a call in doubt after a crash is asked about (its
// reconcile hook, or an effect.in_doubt interrupt), never retried blindly.
//
// Everything below the agent is plain Go: pure functions over plain values
// where possible, taking a context.Context where a model or a tool is
// called, so it can be tested without a graph and every value can live in
// checkpointed state (all types marshal to JSON).
//
// # Planning
//
// LLMPlanner asks a model and re-asks with the problems
// listed — plan.Parse's, plan.Validate's, a low plan.ScoreOf, and the
// objections of the request's guards (PlanRequest.Guards, the agent's
// AgentConfig.Guards). TemplatePlanner matches the goal against
// hand-written plans with no model call; AdaptivePlanner tries templates
// first.
//
// # Execution
//
// Executor.Run runs one step: resolves references (plan.ResolveInput),
// calls the tool (with the failure policy: skip, retry, replan), records an
// AuditRecord per call, and returns a StepOutcome that tells "the tool
// failed" (status failed, Err) from "the step succeeded and showed the route
// is blocked" (Blocked, BlockReason, Impact) — read from the tool's JSON
// output or a Checker. Package nodes/tool makes tools of Go functions:
// tool.Func of a function of a string, tool.New of a function taking a
// struct, its input's JSON Schema derived from the type, each call's input
// checked against it.
//
// # Replanning
//
// After each round, the replan node decides continue, revise, finish,
// blocked or stop (a Budget spent: the StopReason names it) without a model
// call; a round that showed the route is blocked is never a finish, even
// when it completed the plan, and a round that only redid finished work is
// no progress (see Budget.MaxRoundsWithoutProgress). Revise runs a strategy — IncrementalFix (no model call), PartialReplan
// (keeps completed work, replaces the rest, by template or model),
// FullReplan, or AdaptiveReplanner choosing among them — and enforces the
// invariants: completed steps and their evidence are
// never dropped, the goal and the user's constraints never change, and the
// revision passes plan.Validate and the guards (such as plan.ReadOnlyGuard
// for "query only"). AdaptiveReplanner checks each strategy's revision as
// it goes and, when one has no fix or is rejected, tries the next,
// recording why in ReplanInfo.Failed; the run is blocked only when every
// strategy failed; the Decision records it all.
//
// # Answer
//
// TemplateResponder and LLMResponder write the answer from results and
// evidence; when the run ended early, or steps failed and were skipped, they
// say what was done, what is missing and why (Response.Complete is false).
// The agent's respond node adds the stop and the skipped steps to any
// answer that leaves them out.
//
// The delivery scenario of the seed documents, which the tests and
// examples/planexecute run, is example data and lives outside this package.
package nodes
