package main

import (
	"flag"
	"io"

	"github.com/stategraph/stategraph/examples/internal/cli"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/quickstart

A small graph with a fan-out and a conditional loop: it researches a few
topics in parallel, drafts until a router is satisfied, and prints each
task's update as it streams, the final state and the graph as Mermaid.

It takes no arguments and no flags but -h.
`

// parseFlags parses the command line args with fs, as every example does
// (see cli.Parse): it says whether to exit at once, and with what status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	return cli.Parse(fs, usage, args, stdout, stderr)
}
