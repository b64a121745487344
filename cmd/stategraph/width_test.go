package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireFits checks that every line of out but the notes after a table
// is at most width characters wide.
func requireFits(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range lines(out) {
		if strings.HasPrefix(l, "(") {
			continue
		}
		require.LessOrEqual(t, utf8.RuneCountInString(l), width, "%q", l)
	}
}

func TestTablesFitTheWidthInColumns(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	wide := onDB(t, db, "threads")
	require.Equal(t, 0, wide.code, wide.stderr)
	require.Contains(t, wide.stdout, reviewError, "without a width nothing is cut")

	r := cli(t, []string{"COLUMNS=80"}, "-db", db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	requireFits(t, r.stdout, 80)
	// The status is cut, with an ellipsis; the thread ids are whole.
	assert.Regexp(t, `(?m)^failed-1\s+2\s+error \(review: [^…]*…\s+4\s+0\s+\d{4}-`, r.stdout)
	for _, id := range []string{threadDone, threadPaused, threadInterrupted, threadFailed, threadNested} {
		assert.Regexp(t, `(?m)^`+id+`\s`, r.stdout)
	}
	assert.NotContains(t, r.stdout, "ids cut", "no id was shortened")

	// The terminal's width, when $COLUMNS does not say.
	in := runIn(t, terminal{width: 80}, nil, "-db", db, "threads")
	require.Equal(t, 0, in.code, in.stderr)
	assert.Equal(t, r.stdout, in.stdout)
	in = runIn(t, terminal{width: 80}, map[string]string{"COLUMNS": "200"}, "-db", db, "threads")
	assert.Equal(t, wide.stdout, in.stdout, "$COLUMNS overrides the terminal's width")
	in = runIn(t, terminal{}, map[string]string{"COLUMNS": "wide"}, "-db", db, "threads")
	assert.Equal(t, wide.stdout, in.stdout, "a $COLUMNS that is not a number is no width")
}

// When shortening the other columns is not enough, ids keep their end,
// which still names them, and the table says so.
func TestShortenedIDsKeepTheirEndAndSaySo(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	all := decode[[]historyRow](t, db, "history", threadDone)
	// 4+6+6+19 and the gaps leave 13 columns of 56 for the ids.
	r := cli(t, []string{"COLUMNS=56"}, "-db", db, "history", threadDone)
	require.Equal(t, 0, r.code, r.stderr)
	requireFits(t, r.stdout, 56)
	assert.Contains(t, r.stdout, "(…: ids cut to their last 12 characters")
	out := lines(r.stdout)
	require.Len(t, out, 7)
	note := out[6]
	assert.Regexp(t, `^\(…: ids cut to their last \d+ characters, enough to name them; -json shows them whole\)$`, note)
	for i, row := range out[1:6] {
		f := strings.Fields(row)
		end := strings.TrimPrefix(f[len(f)-1], "…")
		require.NotEqual(t, f[len(f)-1], end, "the id is marked cut: %q", row)
		require.True(t, strings.HasSuffix(all[i].Checkpoint, end), "%q ends %q", end, all[i].Checkpoint)
		// The end names the checkpoint.
		v := decode[stateView](t, db, "state", threadDone, end)
		assert.Equal(t, all[i].Checkpoint, v.Checkpoint)
	}
	// JSON is never cut.
	j := cli(t, []string{"COLUMNS=50"}, "-db", db, "-json", "history", threadDone)
	require.Equal(t, 0, j.code, j.stderr)
	assert.Contains(t, j.stdout, all[0].Checkpoint)
}

func TestTableLayout(t *testing.T) {
	t.Parallel()
	const id1, id2 = "01a2340d-fcb9-7884-8466-a38a1d0a530f", "01a2340d-fcb9-7884-8466-b38a1d0a530f"
	for _, tc := range []struct {
		name  string
		width int
		want  string
	}{
		{"no limit", 0, "" +
			"NAME  NOTE                       ID\n" +
			"a     a short note               " + id1 + "\n" +
			"b     a note long enough to cut  " + id2 + "\n"},
		// 4+2+25+2+36 = 69 columns: the note gives up 9, to 15 and a "…".
		{"cut the note", 60, "" +
			"NAME  NOTE              ID\n" +
			"a     a short note      " + id1 + "\n" +
			"b     a note long eno…  " + id2 + "\n"},
		// The note is cut to 8 at most; then the ids, keeping 40-4-8-4-1.
		{"cut the ids too", 40, "" +
			"NAME  NOTE      ID\n" +
			"a     a short…  …-7884-8466-a38a1d0a530f\n" +
			"b     a note …  …-7884-8466-b38a1d0a530f\n" +
			"(…: ids cut to their last 23 characters, enough to name them; -json shows them whole)\n"},
		// The ids differ 12 characters from their end: they keep 12.
		{"no narrower than the floors", 10, "" +
			"NAME  NOTE      ID\n" +
			"a     a short…  …a38a1d0a530f\n" +
			"b     a note …  …b38a1d0a530f\n" +
			"(…: ids cut to their last 12 characters, enough to name them; -json shows them whole)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			tb := newTable(&b, "NAME", "NOTE", "ID").fit(cut, 1).fit(idEnd, 2)
			tb.width = tc.width
			tb.row("a", "a short note", id1)
			tb.row("b", "a note long enough to cut", id2)
			require.NoError(t, tb.flush())
			assert.Equal(t, tc.want, b.String())
		})
	}
}
