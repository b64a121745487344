package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

const (
	defaultDB     = "chat.db"
	defaultThread = "chat"
)

type config struct {
	model  string
	thread string
	db     string
	review bool
	resume bool
}

// parseFlags reads the command line. It returns a code >= 0 when the
// program should exit at once, -1 otherwise.
func parseFlags(args []string, stderr io.Writer) (config, int) {
	var cfg config
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.model, "model", "", "`name` of a real model provider, openai or ollama (default: none, a scripted model, offline)")
	fs.StringVar(&cfg.thread, "thread", defaultThread, "the conversation's thread `ID`")
	fs.StringVar(&cfg.db, "db", defaultDB, "the SQLite checkpoint database `PATH`")
	fs.BoolVar(&cfg.review, "review", false, "ask before each tool call: approve, edit its arguments, or reject it")
	fs.BoolVar(&cfg.resume, "resume", false, "finish the interrupted turn of -thread, then chat on")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: go run ./examples/chat [flags]")
		fmt.Fprintln(stderr, "\nA terminal chat with the prebuilt ReAct agent, checkpointed in SQLite. Try: weather in Oslo; what is 12 * 7")
		fmt.Fprintln(stderr, "\nExit codes: 0 done, 1 failed, 2 bad flags or model setup, 130 interrupted.")
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, exitOK
		}
		return cfg, exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chat: unexpected arguments %q\n", fs.Args())
		return cfg, exitUsage
	}
	switch cfg.model {
	case "", "openai", "ollama":
	default:
		fmt.Fprintf(stderr, "chat: -model %q: want openai or ollama\n", cfg.model)
		return cfg, exitUsage
	}
	if cfg.thread == "" {
		fmt.Fprintln(stderr, "chat: -thread must not be empty")
		return cfg, exitUsage
	}
	return cfg, -1
}

// continueCommand is the command that goes on with the conversation:
// the flags that make the same graph (-review adds a node, so a thread
// saved with it needs it) and the same model.
func (c config) continueCommand() string {
	cmd := "go run ./examples/chat -thread " + c.thread + " -db " + c.db
	if c.review {
		cmd += " -review"
	}
	if c.model != "" {
		cmd += " -model " + c.model
	}
	return cmd
}

// resumeCommand is the command that finishes an unfinished turn.
func (c config) resumeCommand() string {
	return strings.Replace(c.continueCommand(), " -thread ", " -resume -thread ", 1)
}
