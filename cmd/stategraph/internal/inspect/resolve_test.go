package inspect

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatchNamespaceByNameOrPrefixAtTheSameDepth(t *testing.T) {
	t.Parallel()
	all := []string{"", "plan:1", "plan:1|check:7", "draft:2", "draft:3"}
	cases := []struct {
		ns, want string
	}{
		{"", ""},
		{"plan:1", "plan:1"},                 // exact, though a prefix of the nested one
		{"plan", "plan:1"},                   // a prefix does not reach into plan:1|check:7
		{"plan:1|check", "plan:1|check:7"},   // but one that goes through "|" does
		{"plan:1|check:7", "plan:1|check:7"}, // exact
		{"draft:3", "draft:3"},
	}
	for _, c := range cases {
		got, err := MatchNamespace("t", c.ns, all)
		require.NoError(t, err, c.ns)
		assert.Equal(t, c.want, got, c.ns)
	}
}

func TestMatchNamespaceNamesTheThreadAndItsNamespaces(t *testing.T) {
	t.Parallel()
	many := []string{"", "a:1", "a:2", "a:3", "a:4", "a:5", "a:6", "a:7"}
	cases := []struct {
		name       string
		ns         string
		namespaces []string
		is         error
		msg        string
	}{
		{"unknown thread", "x", nil, ErrUnknownThread,
			`unknown thread "t": it has no checkpoint (list threads with "stategraph threads")`},
		{"no subgraph namespace", "x", []string{""}, ErrUnknownNamespace,
			`unknown namespace "x": thread "t" has only the root namespace (no subgraph of it checkpointed); leave out -ns`},
		{"one namespace", "x", []string{"", "a:1"}, ErrUnknownNamespace,
			`unknown namespace "x": thread "t" has no such namespace; its one subgraph namespace is "a:1"`},
		{"at most five listed", "x", many, ErrUnknownNamespace,
			`unknown namespace "x": thread "t" has no such namespace; its subgraph namespaces are "a:1", "a:2", "a:3", "a:4", "a:5" and 2 more`},
		{"ambiguous", "a:", []string{"", "a:1", "a:2", "a:1|b:3"}, ErrUnknownNamespace,
			`unknown namespace "a:": it matches 2 namespaces of thread "t" ("a:1", "a:2"); give more of the namespace`},
		{"a nested namespace needs its parent's", "b", []string{"", "a:1", "a:1|b:3"}, ErrUnknownNamespace,
			`unknown namespace "b": thread "t" has no such namespace; its subgraph namespaces are "a:1", "a:1|b:3"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := MatchNamespace("t", c.ns, c.namespaces)
			require.ErrorIs(t, err, c.is)
			assert.EqualError(t, err, c.msg)
		})
	}
}

func TestShellQuoteQuotesWhatAShellWouldSplit(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "drafting:01a2-ff", shellQuote("drafting:01a2-ff"))
	assert.Equal(t, "'a:1|b:2'", shellQuote("a:1|b:2"))
	assert.Equal(t, `'it'\''s'`, shellQuote("it's"))
	assert.Equal(t, "''", shellQuote(""))
}

func TestMatchCheckpointBySuffixThenSubstring(t *testing.T) {
	t.Parallel()
	a, b := "0190aa00-2b9c-7000-8000-0000000000e1", "0190aa00-2b9d-7000-8000-e1f000002b9c"
	ids := []string{b, a}
	cases := []struct{ ref, want string }{
		{"2b9c", b},  // b's suffix, though also within a
		{"e1", a},    // a's suffix, though also within b
		{"2b9c-", a}, // within a only
		{"e1f0", b},  // within b only
		{"9d-7", b},
	}
	for _, c := range cases {
		got, err := matchCheckpoint("t", "", c.ref, ids)
		require.NoError(t, err, c.ref)
		assert.Equal(t, c.want, got, c.ref)
	}
}

func TestMatchCheckpointListsTheCandidates(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 7 {
		many = append(many, "0190aa00-0000-7000-8000-00000000000"+string(rune('1'+i)))
	}
	cases := []struct {
		name, ns, ref string
		ids           []string
		msg           string
	}{
		{"unknown", "", "zzz", many,
			`unknown checkpoint "zzz": thread "t" has no such checkpoint (list them with "stategraph history t")`},
		{"unknown in a namespace", "a:1|b:2", "zzz", many,
			`unknown checkpoint "zzz": thread "t" namespace "a:1|b:2" has no such checkpoint (list them with "stategraph history t -ns 'a:1|b:2'")`},
		{"ambiguous", "", "0000000000", many[:2],
			`unknown checkpoint "0000000000": it matches 2 checkpoints of thread "t" (` + many[0] + ", " + many[1] + `); give more of the id`},
		{"at most five listed", "", "0190", many,
			`unknown checkpoint "0190": it matches 7 checkpoints of thread "t" (` + strings.Join(many[:5], ", ") + ` and 2 more); give more of the id`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := matchCheckpoint("t", c.ns, c.ref, c.ids)
			require.ErrorIs(t, err, ErrUnknownCheckpoint)
			assert.EqualError(t, err, c.msg)
		})
	}
}

func TestStepNumberIsAPlainIntegerWithoutALeadingZero(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]int{"0": 0, "1": 1, "-1": -1, "12": 12, "2000": 2000} {
		got, ok := stepNumber(ref)
		assert.True(t, ok, ref)
		assert.Equal(t, want, got, ref)
	}
	for _, ref := range []string{"", "-", "-0", "+1", "01", "0042", "1a", "a111", "1.5", " 1"} {
		_, ok := stepNumber(ref)
		assert.False(t, ok, "%q is not a step", ref)
	}
}
