// Package linecount counts the lines of a program the way
// docs/langgraph.md compares stategraph's programs with LangGraph
// Python's: every line that is not blank, not a comment, not the package
// clause and not an import (a Go import block's lines, Python's import
// and from … import lines).
package linecount

import (
	"os"
	"strings"
)

// File counts the lines of the Go or Python file at path.
func File(path string) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return Count(string(src), strings.HasSuffix(path, ".py")), nil
}

// Count counts src's lines; python selects Python's comments and imports.
func Count(src string, python bool) int {
	n, inImports, inDoc := 0, false, false
	for line := range strings.SplitSeq(src, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case python && inDoc:
			inDoc = !strings.Contains(l, `"""`)
			continue
		case inImports:
			inImports = l != ")"
			continue
		case l == "":
			continue
		case python && (strings.HasPrefix(l, "#") || strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ")):
			continue
		case python && strings.HasPrefix(l, `"""`) && (len(l) < 6 || !strings.HasSuffix(l, `"""`)):
			inDoc = true // a docstring over several lines counts as none, as a Go doc comment
			continue
		case python && strings.HasPrefix(l, `"""`):
			continue // a one-line docstring: a comment
		case !python && strings.HasPrefix(l, "//"):
			continue
		case !python && (strings.HasPrefix(l, "package ") || strings.HasPrefix(l, "import \"")):
			continue
		case !python && l == "import (":
			inImports = true
			continue
		}
		n++
	}
	return n
}
