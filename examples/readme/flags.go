package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// usage is what -h prints, before the flags.
const usage = `usage: go run ./examples/readme

The README's quickstart: a writer drafts an essay on thread essay-1,
checkpointed in ./essays.db, then the program prints the drafts and how
to inspect the thread with the inspector.

It takes no arguments and no flags but -h.
`

// parseFlags parses the command line args with fs. It returns the exit
// status and true when the program should stop at once: 0 after -h,
// -help or --help (the usage on stdout), 2 for an unknown flag, a bad
// value or an argument (the error and the usage on stderr).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout, fs)
		return 0, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
	default:
		return 0, false
	}
	printUsage(stderr, fs)
	return 2, true
}

// printUsage writes the usage and fs's flags, if it has any, to w.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
