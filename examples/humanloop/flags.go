package main

import (
	"flag"
	"io"

	"github.com/stategraph/stategraph/examples/internal/cli"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/humanloop [-stdin] [-db PATH [-stop | -resume]]

A support agent drafts a reply to a refund request; a reviewer approves it,
or says what to change (an empty note is refused) and the agent drafts
again. The reviewer's answers are scripted, or with -stdin yours.

With -db the thread is saved in a SQLite file: -stop stops at the first
question, and a new process with -resume answers it:
  go run ./examples/humanloop -db ticket.db -stop
  go run ./examples/humanloop -db ticket.db -resume
`

// parseFlags parses the command line args with fs, as every example does
// (see cli.Parse): it says whether to exit at once, and with what status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	return cli.Parse(fs, usage, args, stdout, stderr)
}
