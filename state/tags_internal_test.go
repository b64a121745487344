package state

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tag  string
		want tagSpec
		err  string
	}{
		{tag: "", want: tagSpec{}},
		{tag: "-", want: tagSpec{skip: true}},
		{tag: "value", want: tagSpec{kind: KindValue}},
		{tag: "append", want: tagSpec{kind: KindAppend}},
		{tag: "merge", want: tagSpec{kind: KindMerge}},
		{tag: "sum", want: tagSpec{kind: KindSum}},
		{tag: "messages", want: tagSpec{kind: KindCustom, reducer: "messages"}},
		{tag: "reducer=longest", want: tagSpec{kind: KindCustom, reducer: "longest"}},
		{tag: "append,name=past_steps", want: tagSpec{kind: KindAppend, name: "past_steps"}},
		{tag: "name=n,sum", want: tagSpec{kind: KindSum, name: "n"}},
		{tag: "apend", err: `unknown word "apend"`},
		{tag: "append,merge", err: `"merge" gives a second reducer`},
		{tag: "append,", err: "an empty word"},
		{tag: " append", err: `unknown word " append"`},
		{tag: "reducer=", err: `"reducer=": a reducer name is`},
		{tag: "name=__x", err: `"name=__x": a field name is`},
		{tag: "name=a,name=b", err: `"name=b" gives a second name`},
		{tag: "size=3", err: `unknown word "size=3"`},
		{tag: "-,append", err: `unknown word "-"`},
	} {
		got, err := parseTag(tc.tag)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "tag %q", tc.tag)
			continue
		}
		require.NoError(t, err, "tag %q", tc.tag)
		assert.Equal(t, tc.want, got, "tag %q", tc.tag)
	}
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Input": "input", "PastSteps": "past_steps", "ID": "id", "HTTPCode": "http_code",
		"UserID": "user_id", "Step2Done": "step2_done", "A": "a", "already_snake": "already_snake",
	} {
		assert.Equal(t, want, snakeCase(in), in)
	}
}

// FuzzParseTag: the parser never panics, and a tag it accepts formats
// (String) as one that parses to the same spec.
func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"", "-", "append", "merge,name=x", "reducer=messages", "sum,name=n_calls", "a,,b", "name=", "reducer=r=s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		sp, err := parseTag(tag)
		if err != nil {
			return
		}
		back, err := parseTag(sp.String())
		require.NoError(t, err, "tag %q formats as %q", tag, sp.String())
		require.Equal(t, sp, back, "tag %q formats as %q", tag, sp.String())
	})
}
