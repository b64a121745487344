package main

import (
	"flag"
	"io"

	"github.com/stategraph/stategraph/examples/internal/cli"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/readme

The README's quickstart: a writer drafts an essay on thread essay-1,
checkpointed in ./essays.db, then the program prints the drafts and how
to inspect the thread with the inspector.

It takes no arguments and no flags but -h.
`

// parseFlags parses the command line args with fs, as every example does
// (see cli.Parse): it says whether to exit at once, and with what status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	return cli.Parse(fs, usage, args, stdout, stderr)
}
