package main

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// hostile is a thread id and a topic that would drive a terminal: an
// ANSI escape that clears the screen and a right-to-left override.
const hostile = "evil\x1b[2J\u202egnp.exe\x07"

// populateHostile runs docGraph on a thread named hostile, about hostile.
func populateHostile(t testing.TB, saver checkpoint.Saver) {
	t.Helper()
	app, err := docGraph(approve).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), state.Writes(topicF.Set(hostile)), graph.WithThread(hostile))
	require.NoError(t, err)
}

// requireTerminalSafe checks that out holds no control character but the
// newline and no bidirectional formatting character, and shows the
// hostile ones escaped.
func requireTerminalSafe(t *testing.T, out, cmd string) {
	t.Helper()
	for i, r := range out {
		require.False(t, r == utf8.RuneError || (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || isBidi(r),
			"%s: output has %U at byte %d: %q", cmd, r, i, out)
	}
	assert.Contains(t, out, `\x1b[2J\u202egnp.exe\a`, cmd)
}

func TestInspectorEscapesControlAndBidiCharactersInTextOutput(t *testing.T) {
	t.Parallel()
	db := newDB(t, "hostile.db", populateHostile)
	for _, args := range [][]string{
		{"threads"},
		{"state", hostile},
		{"history", hostile},
		{"mermaid", hostile},
		{"prune", "-keep=3", "-y", hostile},
		{"delete", "-yes", hostile},
	} {
		r := onDB(t, db, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		if args[0] == "history" || args[0] == "mermaid" {
			// No user text in these but node names and ids: nothing to show.
			requireNoRawControl(t, r.stdout, args[0])
			continue
		}
		requireTerminalSafe(t, r.stdout, args[0])
	}
	// An error naming the thread escapes it too.
	r := onDB(t, db, "state", hostile)
	require.NotEqual(t, 0, r.code)
	requireTerminalSafe(t, r.stderr, "state of a deleted thread")
}

func TestInspectorJSONKeepsHostileTextExact(t *testing.T) {
	t.Parallel()
	db := newDB(t, "hostile.db", populateHostile)
	rows := decode[[]threadRow](t, db, "threads")
	require.Len(t, rows, 1)
	require.Equal(t, hostile, rows[0].Thread)
}

func requireNoRawControl(t *testing.T, out, cmd string) {
	t.Helper()
	for i, r := range out {
		require.False(t, (r < 0x20 && r != '\n' && r != '\t') || isBidi(r), "%s: output has %U at byte %d: %q", cmd, r, i, out)
	}
}

func TestPrintableEscapesWhatATerminalWouldObey(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain":               "plain",
		"tab\tnew\nline":      `tab\tnew\nline`,
		"\x1b[31mred":         `\x1b[31mred`,
		"del\x7f c1\u009b":    `del\x7f c1\u009b`,
		"\u202eabc\u2066":     `\u202eabc\u2066`,
		"lrm\u200e alm\u061c": `lrm\u200e alm\u061c`,
		"bad \xff utf-8":      `bad \xff utf-8`,
		"ünïcödé ✓ 日本":        "ünïcödé ✓ 日本",
	}
	for in, want := range cases {
		assert.Equal(t, want, printable(in), "%q", in)
	}
	assert.Equal(t, "one\n\ttwo\\x1b", printableText("one\n\ttwo\x1b"))
	assert.False(t, strings.ContainsRune(printable("a\u202eb"), '\u202e'))
}
