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
		{"nodes", checkpoint.Schedule{Nodes: []string{"a", "b"}}, `{"nodes":["a","b"]}`},
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
