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
//
// Ctrl-C stops the run and leaves the thread resumable; the program prints
// the command that finishes it. Exit codes: 0 answered, 1 the run failed,
// 2 bad flags or a model that is not configured or not reachable,
// 3 the answer was declined at the approval prompt, 130 interrupted.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	cfg, code := parseFlags(os.Args[1:], os.Stderr)
	if code >= 0 {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	os.Exit(run(ctx, cfg, os.Stdin, os.Stdout, os.Stderr))
}
