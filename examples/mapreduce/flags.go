package main

import (
	"flag"
	"io"

	"github.com/stategraph/stategraph/examples/internal/cli"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/mapreduce

Counts the words of a few Go proverbs with map-reduce: one count task per
document, all in one step, a custom reducer adding their counts in Send
order, and a reduce node ranking the words.

It takes no arguments and no flags but -h.
`

// parseFlags parses the command line args with fs, as every example does
// (see cli.Parse): it says whether to exit at once, and with what status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	return cli.Parse(fs, usage, args, stdout, stderr)
}
