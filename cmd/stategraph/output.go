package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
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

// table writes aligned columns; the first row is the header. Rows are
// kept until flush, which fits them in width columns, when it is set, by
// shortening the columns marked cut (the widest first, ending each cell
// with "…") and, if that is not enough, those marked id (keeping each
// id's end, which names it: "…" + its last characters), and says so
// below the table when it shortened an id.
type table struct {
	w     io.Writer
	width int
	fits  []fit
	rows  [][]string
	kept  []bool // rows whose cells are never shortened (the header too)
}

// fit is how a column may be shortened to fit the width.
type fit int

const (
	keep  fit = iota // never: thread ids, steps, times
	cut              // cut at the end, "…" last
	idEnd            // an id: shortened to "…" and its last characters
)

// minCut is the fewest characters a cut column is shortened to.
const minCut = 8

// minIDEnd is the fewest last characters of an id a shortened id keeps;
// more when ids of the column share their last minIDEnd characters.
const minIDEnd = 8

// newTable returns a table without a width limit.
func newTable(w io.Writer, header ...string) *table {
	t := &table{w: w}
	t.keepRow(header...)
	return t
}

// table returns a table that fits the width of e's terminal.
func (e *env) table(header ...string) *table {
	t := newTable(e.out, header...)
	t.width = e.width
	return t
}

// fit marks the columns cols as shortened by f to fit the width.
func (t *table) fit(f fit, cols ...int) *table {
	for _, c := range cols {
		for len(t.fits) <= c {
			t.fits = append(t.fits, keep)
		}
		t.fits[c] = f
	}
	return t
}

func (t *table) row(cells ...string)     { t.add(false, cells) }
func (t *table) keepRow(cells ...string) { t.add(true, cells) }

func (t *table) add(kept bool, cells []string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = printable(strings.NewReplacer("\t", " ", "\n", " ").Replace(c))
	}
	t.rows = append(t.rows, row)
	t.kept = append(t.kept, kept)
}

func (t *table) flush() error {
	widths, shortenedIDs := t.layout()
	tw := tabwriter.NewWriter(t.w, 0, 4, 2, ' ', 0)
	for r, row := range t.rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = c
			if !t.kept[r] && i < len(widths) {
				cells[i] = shorten(c, widths[i], t.fitOf(i))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shortenedIDs > 0 {
		_, err := fmt.Fprintf(t.w, "(…: ids cut to their last %d characters, enough to name them; -json shows them whole)\n", shortenedIDs)
		return err
	}
	return nil
}

func (t *table) fitOf(col int) fit {
	if col < len(t.fits) {
		return t.fits[col]
	}
	return keep
}

// layout returns the width of each column that fits the table in
// t.width, as near as the columns allow, and how many last characters
// shortened ids keep (0: none was shortened).
func (t *table) layout() ([]int, int) {
	n := 0
	for _, row := range t.rows {
		n = max(n, len(row))
	}
	natural := make([]int, n)
	floor := make([]int, n)
	for r, row := range t.rows {
		for i, c := range row {
			w := utf8.RuneCountInString(c)
			natural[i] = max(natural[i], w)
			if t.kept[r] {
				floor[i] = max(floor[i], w)
			}
		}
	}
	widths := slices.Clone(natural)
	if t.width <= 0 {
		return widths, 0
	}
	idKeep := make([]int, n)
	for i := range n {
		switch t.fitOf(i) {
		case keep:
			floor[i] = natural[i]
		case cut:
			floor[i] = min(natural[i], max(floor[i], minCut))
		case idEnd:
			idKeep[i] = t.uniqueEnd(i)
			floor[i] = min(natural[i], max(floor[i], idKeep[i]+1))
		}
	}
	total := func() int {
		s := 2 * max(n-1, 0)
		for _, w := range widths {
			s += w
		}
		return s
	}
	for _, kind := range []fit{cut, idEnd} {
		for total() > t.width {
			widest := -1
			for i := range n {
				if t.fitOf(i) == kind && widths[i] > floor[i] && (widest < 0 || widths[i] >= widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
		}
	}
	shortened := 0
	for i := range n {
		if t.fitOf(i) == idEnd && widths[i] < natural[i] {
			shortened = max(shortened, widths[i]-1)
		}
	}
	return widths, shortened
}

// uniqueEnd returns how many last characters the ids of column col need
// to stay distinct, at least minIDEnd.
func (t *table) uniqueEnd(col int) int {
	var ids []string
	for r, row := range t.rows {
		if !t.kept[r] && col < len(row) {
			ids = append(ids, row[col])
		}
	}
	for k := minIDEnd; ; k++ {
		seen := map[string]bool{}
		clash, longer := false, false
		for _, id := range ids {
			rs := []rune(id)
			if len(rs) > k {
				longer = true
				rs = rs[len(rs)-k:]
			}
			if seen[string(rs)] {
				clash = true
			}
			seen[string(rs)] = true
		}
		if !clash || !longer {
			return k
		}
	}
}

// shorten fits the cell c in w columns as f says.
func shorten(c string, w int, f fit) string {
	r := []rune(c)
	if len(r) <= w || f == keep || w < 1 {
		return c
	}
	if f == idEnd {
		return "…" + string(r[len(r)-(w-1):])
	}
	return string(r[:w-1]) + "…"
}

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
