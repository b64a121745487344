// Chat is a terminal chat with the prebuilt ReAct agent of package
// chat/agent and two tools, a weather lookup and a calculator.
//
//	go run ./examples/chat
//
// Type a message and press Enter; an empty line or end of input (Ctrl-D)
// ends the chat. It runs offline by default: a scripted model that calls
// get_weather when you name a city it knows (Oslo, Paris, Tokyo, Lima) and
// calculate when you write a sum such as 12 * 7, and answers from the
// results. Every step is checkpointed in a SQLite file, ./chat.db, on one
// thread, so the conversation continues where it was when you start the
// program again with the same -thread.
//
// Flags:
//
//	-model openai|ollama  chat with a real model (OPENAI_API_KEY,
//	                      OPENAI_BASE_URL, OPENAI_MODEL; OLLAMA_HOST,
//	                      OLLAMA_MODEL)
//	-thread ID            the conversation (default "chat")
//	-db PATH              the checkpoint database (default ./chat.db)
//	-review               ask before each tool call: approve, edit its
//	                      arguments, or reject it with a reason
//	-resume               finish the turn that was interrupted, then chat on
//
// Ctrl-C during a turn stops it and leaves the thread resumable; the
// program prints the command that finishes the turn (-resume), which runs
// only what was cut off: a model reply that was saved is not asked for
// again, and a tool call that had finished is not run again (each call is
// a task of its own). Ctrl-C at the "you:" prompt ends the program at
// once and prints the command that goes on with the conversation. Both
// commands carry the flags the thread needs: a thread started with
// -review has a review node, and a graph without it cannot read it (the
// program says so: graph.ErrGraphMismatch, not damage).
//
// Exit codes: 0 done, 1 a turn failed, 2 bad flags or a model not
// configured, 130 interrupted.
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
	os.Exit(run(ctx, cfg, os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}
