package main

import (
	"flag"
	"io"

	"github.com/stategraph/stategraph/examples/internal/cli"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/timetravel

Books a trip, then goes back in the thread's history: replays from the
checkpoint after choose_city and forks it with another city, printing
the history, newest first, as it goes.

It takes no arguments and no flags but -h.
`

// parseFlags parses the command line args with fs, as every example does
// (see cli.Parse): it says whether to exit at once, and with what status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	return cli.Parse(fs, usage, args, stdout, stderr)
}
