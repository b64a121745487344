package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestSchedMemoKeepsTheLastSchedulesParsed(t *testing.T) {
	t.Parallel()
	data := func(i int) []byte { return fmt.Appendf(nil, `{"nodes":["n%d"]}`, i) }
	var m schedMemo
	for i := range schedMemoSize + 1 {
		_, ok := m.find(data(i))
		require.False(t, ok, "schedule %d is new", i)
		m.add(data(i), checkpoint.Schedule{Nodes: []string{fmt.Sprint("n", i)}})
	}
	_, ok := m.find(data(0))
	require.False(t, ok, "the oldest was forgotten")
	for i := 1; i <= schedMemoSize; i++ {
		s, ok := m.find(data(i))
		require.True(t, ok, "schedule %d", i)
		require.Equal(t, []string{fmt.Sprint("n", i)}, s.Nodes)
	}

	long := []byte(`{"nodes":["` + strings.Repeat("x", schedMemoMax) + `"]}`)
	m.add(long, checkpoint.Schedule{Nodes: []string{"x"}})
	_, ok = m.find(long)
	require.False(t, ok, "a long schedule is not kept")

	var none *schedMemo
	none.add(data(1), checkpoint.Schedule{})
	_, ok = none.find(data(1))
	require.False(t, ok)
}
