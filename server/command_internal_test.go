package server

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGoto(t *testing.T) {
	t.Parallel()
	nodes := []string{"__start__", "a", "b", "__end__"}
	tests := []struct {
		raw   string
		gotos []string
		sends []SendInput
		err   string
	}{
		{`null`, nil, nil, ""},
		{`"a"`, []string{"a"}, nil, ""},
		{`["a", "__end__"]`, []string{"a", "__end__"}, nil, ""},
		{`{"node": "b", "input": {"x": 1}}`, nil, []SendInput{{Node: "b", Input: json.RawMessage(`{"x": 1}`)}}, ""},
		{`["a", {"node": "b"}]`, []string{"a"}, []SendInput{{Node: "b"}}, ""},
		{`"__start__"`, nil, nil, `no node "__start__" (nodes: a, b, __end__)`},
		{`"zz"`, nil, nil, `no node "zz"`},
		{`[1]`, nil, nil, `field "command.goto[0]"`},
		{`{"input": {}}`, nil, nil, `field "command.goto[0]"`},
		{`{"node": "__end__"}`, nil, nil, "cannot go to __end__"},
		{`[`, nil, nil, `field "command.goto"`},
	}
	for _, tt := range tests {
		gotos, sends, err := parseGoto(json.RawMessage(tt.raw), nodes)
		if tt.err != "" {
			var ie *InputError
			require.True(t, errors.As(err, &ie), "%s: %v", tt.raw, err)
			assert.Contains(t, err.Error(), tt.err, tt.raw)
			continue
		}
		require.NoError(t, err, tt.raw)
		assert.Equal(t, tt.gotos, gotos, tt.raw)
		assert.Equal(t, tt.sends, sends, tt.raw)
	}
}

func TestUpdateObjectTakesPairs(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want, err string }{
		{`{"a": 1}`, `{"a": 1}`, ""},
		{`[["a", 1], ["b", "x"]]`, `{"a":1,"b":"x"}`, ""},
		{`[]`, `{}`, ""},
		{`[["a", 1], ["a", 2]]`, "", `field "command.update.a": written twice`},
		{`[["a"]]`, "", `field "command.update[0]"`},
		{`[[1, 2]]`, "", `field "command.update[0]"`},
	}
	for _, tt := range tests {
		got, err := updateObject(json.RawMessage(tt.raw))
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.raw)
			continue
		}
		require.NoError(t, err, tt.raw)
		assert.JSONEq(t, tt.want, string(got), tt.raw)
	}
}

// FuzzParseGoto: any body is parsed or refused with an *InputError, and
// what is parsed names only the graph's nodes.
func FuzzParseGoto(f *testing.F) {
	for _, s := range []string{`"a"`, `["a", {"node": "b", "input": {}}]`, `{"node": 1}`, `[[]]`, `""`} {
		f.Add(s)
	}
	nodes := []string{"__start__", "a", "b", "__end__"}
	f.Fuzz(func(t *testing.T, raw string) {
		gotos, sends, err := parseGoto(json.RawMessage(raw), nodes)
		if err != nil {
			var ie *InputError
			require.True(t, errors.As(err, &ie), "%q: %v", raw, err)
			return
		}
		for _, g := range gotos {
			require.Contains(t, []string{"a", "b", "__end__"}, g)
		}
		for _, s := range sends {
			require.Contains(t, []string{"a", "b"}, s.Node)
		}
	})
}
