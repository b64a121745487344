package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// timeLayout is how tables show times: local time to the second.
const timeLayout = "2006-01-02 15:04:05"

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes aligned columns; the first row is the header.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = printable(strings.NewReplacer("\t", " ", "\n", " ").Replace(c))
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// when formats a time for a table; the zero time is "-".
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(timeLayout)
}

// list formats names for a table; none is "-".
func list(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// short shortens s to n runes on one line, for a table cell.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// printable returns s fit for a terminal: control characters (C0, DEL,
// C1), bidirectional formatting characters (which reorder what follows,
// e.g. U+202E) and invalid UTF-8 are written as Go escapes (\x1b, \t,
// \u202e, \xff), so stored text cannot move the cursor, recolour the
// screen or disguise itself. Everything else, backslashes included, is
// kept as is; -json output is exact. Every text printer of the inspector
// writes stored or user-given text through it (or printableText).
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && needsEscape(r):
			q := strconv.QuoteRuneToASCII(r) // '\t', '\x1b', '\x7f'
			b.WriteString(q[1 : len(q)-1])
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printableText is printable for laid-out text (indented JSON, Mermaid,
// an error of several lines): newlines and tabs stay, everything else is
// escaped as printable escapes it.
func printableText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cols := strings.Split(l, "\t")
		for k, c := range cols {
			cols[k] = printable(c)
		}
		lines[i] = strings.Join(cols, "\t")
	}
	return strings.Join(lines, "\n")
}

// needsEscape reports whether a terminal would act on r rather than show
// it: a control character or a bidirectional formatting character.
func needsEscape(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || isBidi(r)
}

// isBidi reports whether r is a bidirectional formatting character:
// ALM, LRM, RLM, the embeddings and overrides (U+202A-U+202E) and the
// isolates (U+2066-U+2069).
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
