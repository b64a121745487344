// Package cli is the command-line convention the examples share: -h,
// -help and --help print the usage on standard output and exit 0; an
// unknown flag, a bad value or an argument prints the error and the usage
// on standard error and exits 2.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses the command line args with fs. It returns the exit status
// and true when the program should stop at once: 0 after -h, -help or
// --help (usage and the flags on stdout), 2 for an unknown flag, a bad
// value or an argument (the error, then usage and the flags, on stderr).
func Parse(fs *flag.FlagSet, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		PrintUsage(stdout, usage, fs)
		return 0, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
	default:
		return 0, false
	}
	PrintUsage(stderr, usage, fs)
	return 2, true
}

// PrintUsage writes usage and fs's flags, if it has any, to w.
func PrintUsage(w io.Writer, usage string, fs *flag.FlagSet) {
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
