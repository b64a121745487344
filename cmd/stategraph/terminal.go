package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
)

// terminal is what the inspector knows of the terminal it runs in: where
// delete reads its confirmation, whether a person can type it there,
// and how wide standard output is.
type terminal struct {
	in io.Reader
	// interactive reports that in is a terminal: someone can answer.
	interactive bool
	// width is standard output's width in columns when it is a
	// terminal, else 0.
	width int
}

// osTerminal is the process's terminal: standard input, and the width
// of stdout when it is the process's standard output on a terminal.
func osTerminal(stdout io.Writer) terminal {
	t := terminal{in: os.Stdin, interactive: isTerminal(os.Stdin)}
	if f, ok := stdout.(*os.File); ok && isTerminal(f) {
		t.width = columns(f)
	}
	return t
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// tableWidth is how many columns tables must fit in: $COLUMNS when it
// is a positive number, else the terminal's width (0, no limit, when
// standard output is not a terminal: a pipe or a file gets whole rows).
func tableWidth(t terminal, getenv func(string) string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return t.width
}
