package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	progName    = "stategraph"
	dsnEnv      = "STATEGRAPH_POSTGRES_DSN"
	usageHeader = `usage: stategraph [-db PATH | -dsn DSN [-schema NAME]] [-json] COMMAND [ARGS]

Inspect a stategraph checkpoint database.

Database (one of), before or after the command:
  -db PATH       a SQLite checkpoint file (it must exist)
  -dsn DSN       a PostgreSQL database (default: $STATEGRAPH_POSTGRES_DSN)
  -schema NAME   the PostgreSQL schema of the stategraph tables (default: search_path)
Encrypted databases (checkpoint/encrypt):
  -key-file PATH the keys, one "ID BASE64" a line, the active key first
                 (default: $STATEGRAPH_KEY_FILE)
Output:
  -json          print JSON instead of tables
                 (tables fit the terminal's width, or $COLUMNS when it is set)

Commands:
`
	usageFooter = `
  serve [-addr HOST:PORT]  serve the example graphs over LangGraph's Agent Server API (serve -h)
  studio [-addr HOST:PORT] a local web page to watch, inspect, fork and resume threads (studio -h)
  version                  the module version this binary was built from

CHECKPOINT is a step number (-1 for the input checkpoint; the newest
checkpoint of that step when a fork or an update saved several), an id
from history, or a part of one of at least 4 characters (a suffix, or
any chunk) that no other checkpoint of the thread has.
NS is a namespace in which a subgraph of the thread checkpointed, as
threads -json lists them, or a prefix of one such as the subgraph's node
name. Without -ns, commands read the root graph's namespace.
PATH is a field and the keys or indexes into its value, dot by dot, as
diff names what changed: plan.steps.0.status.
`
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct {
	msg string
	cmd *command // the command whose usage to show, or nil for all
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd *command, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), cmd: cmd}
}

// printUsage writes the whole usage.
func printUsage(w io.Writer) {
	fmt.Fprint(w, usageHeader)
	width := 0
	for _, c := range commands {
		width = max(width, len(c.synopsis()))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.synopsis(), c.summary)
	}
	fmt.Fprint(w, usageFooter)
}

// printCommandUsage writes the usage of cmd: its synopsis, what it does
// and its flags.
func printCommandUsage(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: %s [database flags] %s\n\n%s\n", progName, cmd.synopsis(), cmd.summary)
	if cmd.flags != nil {
		fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
		cmd.flags(fs, &env{})
		fmt.Fprintf(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	fmt.Fprint(w, `
Database and output flags, before or after the command:
  -db PATH       a SQLite checkpoint file (it must exist)
  -dsn DSN       a PostgreSQL database (default: $STATEGRAPH_POSTGRES_DSN)
  -schema NAME   the PostgreSQL schema of the stategraph tables
  -key-file PATH the keys of an encrypted database (default: $STATEGRAPH_KEY_FILE)
  -json          print JSON instead of tables
`)
}

// report prints err to w and returns the exit status it calls for.
func report(w io.Writer, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(w, "%s: %s\n", progName, printableText(ue.msg))
		if ue.cmd != nil {
			fmt.Fprintf(w, "usage: %s [database flags] %s\n(%s %s -h shows its flags)\n", progName, ue.cmd.synopsis(), progName, ue.cmd.name)
		} else {
			printUsage(w)
		}
		return exitUsage
	}
	fmt.Fprintf(w, "%s: %s\n", progName, printableText(err.Error()))
	return exitFailed
}
