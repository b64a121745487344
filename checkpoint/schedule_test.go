package checkpoint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// The bytes of a schedule are part of the on-disk format: databases
// written by earlier versions must read the same.
func TestScheduleBytesAreStable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    checkpoint.Schedule
		want string
	}{
		{"empty", checkpoint.Schedule{}, `{}`},
		{"nodes", checkpoint.Schedule{Nodes: []string{"a", "b"}}, `["a","b"]`},
		{"nodes that JSON escapes", checkpoint.Schedule{Nodes: []string{`a"b`, "é", "x<y"}}, `["a\"b","é","x\u003cy"]`},
		{"sends", checkpoint.Schedule{Nodes: []string{"a"}, Sends: []checkpoint.ScheduledSend{{Node: "w", Arg: map[string][]byte{"x": []byte("1")}}}},
			`{"nodes":["a"],"sends":[{"node":"w","arg":{"x":"MQ=="}}]}`},
		{"joins", checkpoint.Schedule{Joins: map[string][]string{checkpoint.JoinKey([]string{"a", "b"}, "c"): {"a"}}}, `{"joins":{"a,b\u003ec":["a"]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := checkpoint.AppendSchedule(nil, tc.s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			back, err := checkpoint.ParseSchedule(got)
			require.NoError(t, err)
			assert.Equal(t, tc.s.Nodes, back.Nodes)
			assert.Equal(t, tc.s.Joins, back.Joins)
			assert.Len(t, back.Sends, len(tc.s.Sends))
		})
	}
}

func TestParseScheduleRejectsMalformedJSON(t *testing.T) {
	t.Parallel()
	_, err := checkpoint.ParseSchedule([]byte(`[`))
	assert.Error(t, err)
	s, err := checkpoint.ParseSchedule([]byte(`{"nodes":["a\"b"]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{`a"b`}, s.Nodes)
}

// Schedules of nodes only were written as {"nodes":[…]} before they were
// written as the list; databases hold both and read the same.
func TestParseScheduleReadsTheObjectFormOfEarlierVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		old  string
		want []string
	}{
		{`{"nodes":["__start__"]}`, []string{"__start__"}},
		{`{"nodes":["a","b"]}`, []string{"a", "b"}},
		{`{"nodes":["a,b","c"]}`, []string{"a,b", "c"}},
		{`{"nodes":["a\"b"]}`, []string{`a"b`}},
	}
	for _, tc := range cases {
		t.Run(tc.old, func(t *testing.T) {
			t.Parallel()
			s, err := checkpoint.ParseSchedule([]byte(tc.old))
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Nodes)
			assert.Empty(t, s.Sends)
			assert.Empty(t, s.Joins)
			now, err := checkpoint.AppendSchedule(nil, s)
			require.NoError(t, err)
			assert.Less(t, len(now), len(tc.old), "the list is the shorter form")
			back, err := checkpoint.ParseSchedule(now)
			require.NoError(t, err)
			assert.Equal(t, tc.want, back.Nodes)
		})
	}
}
