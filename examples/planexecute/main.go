// Planexecute runs the plan-and-execute agent of package nodes on the
// delivery case: can order O1001 (warehouse A) arrive before Friday 18:00,
// and if not, what are the alternatives? The agent plans, finds that
// warehouse A has no stock, replans to evaluate warehouse B, and
// recommends standard shipping from B.
//
//	go run ./examples/planexecute
//
// It runs offline by default (a template planner, rule-based replanning,
// a template responder and simulated order, stock and shipping tools) and
// checkpoints every step in a SQLite file, ./planexecute.db. It prints each
// node as it starts and ends, the plan, the replan and why, then the answer.
// The number on each progress line is the graph step (the superstep, one
// checkpoint each); the plan's steps are named (order, stock_a, …).
//
// Flags:
//
//	-model openai|ollama  let a real model plan, replan and answer
//	                      (OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL;
//	                      OLLAMA_HOST, OLLAMA_MODEL)
//	-thread ID            the thread to run on (default: a new id, printed)
//	-resume               continue an interrupted thread (needs -thread)
//	-approve              ask on the terminal (y/n) before the final answer
//	-db PATH              the checkpoint database (default ./planexecute.db)
//	-mermaid FILE         write the graph and this run's path as Markdown
//	-delay DURATION       make each simulated tool call take that long
//	                      (default 0), time enough to press Ctrl-C
//
// The same program exporting OpenTelemetry spans (run, steps, tasks,
// checkpoint writes, model and tool calls) is examples/tracing: the
// exporters' modules (gRPC, protobuf, OTLP) are its own, so this program
// downloads and links none of them.
//
// Ctrl-C stops the run and leaves the thread resumable; the program prints
// the command that finishes it. The offline run takes milliseconds, so to
// try it, slow the tools down:
//
//	go run ./examples/planexecute -delay 2s -thread demo   # press Ctrl-C after a few tool calls
//	go run ./examples/planexecute -resume -thread demo     # finishes the thread
//
// Exit codes: 0 answered, 1 the run failed, 2 bad flags (a -mermaid file
// that cannot be created among them) or a model that is not configured or
// not reachable, 3 the answer was declined at the approval prompt,
// 130 interrupted. go run reports any of them but 0 as its own exit
// status 1 (printing "exit status 3"); a script that needs them runs the
// program itself:
//
//	go build -o planexecute ./examples/planexecute && ./planexecute
package main

import "github.com/stategraph/stategraph/examples/internal/planexec"

func main() { planexec.Exit(planexec.Program{}) }
