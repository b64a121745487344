package rowsum_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/internal/rowsum"
)

func sum(f func(*rowsum.Sum)) uint32 {
	var s rowsum.Sum
	f(&s)
	return s.Value()
}

// TestSumFramesColumns checks that bytes moved from one column to the
// next, a column of another kind, and a changed map all change the sum.
func TestSumFramesColumns(t *testing.T) {
	t.Parallel()
	base := sum(func(s *rowsum.Sum) { s.String("ab").String("c") })
	for name, other := range map[string]uint32{
		"bytes moved":     sum(func(s *rowsum.Sum) { s.String("a").String("bc") }),
		"kind changed":    sum(func(s *rowsum.Sum) { s.Bytes([]byte("ab")).String("c") }),
		"column appended": sum(func(s *rowsum.Sum) { s.String("ab").String("c").String("") }),
		"int for string":  sum(func(s *rowsum.Sum) { s.Int(2).String("c") }),
	} {
		require.NotEqual(t, base, other, name)
	}
	require.Equal(t, base, sum(func(s *rowsum.Sum) { s.String("ab").String("c") }), "deterministic")
	require.Equal(t, sum(func(s *rowsum.Sum) { s.Bytes(nil) }), sum(func(s *rowsum.Sum) { s.Bytes([]byte{}) }), "nil and empty bytes")
	require.NotEqual(t, sum(func(s *rowsum.Sum) { s.Bool(true) }), sum(func(s *rowsum.Sum) { s.Bool(false) }))
	m := map[string]string{"a": "1", "b": "2"}
	require.Equal(t, sum(func(s *rowsum.Sum) { s.StringMap(m) }), sum(func(s *rowsum.Sum) { s.StringMap(map[string]string{"b": "2", "a": "1"}) }), "map order")
	require.NotEqual(t, sum(func(s *rowsum.Sum) { s.StringMap(m) }), sum(func(s *rowsum.Sum) { s.StringMap(map[string]string{"a": "1", "b": "3"}) }))
	require.NotEqual(t, sum(func(s *rowsum.Sum) { s.StringMap(map[string]string{"ab": ""}) }), sum(func(s *rowsum.Sum) { s.StringMap(map[string]string{"a": "b"}) }))
}

// TestStringMapOfASmallMapDoesNotAllocate: a checkpoint row's versions
// are summed at every Put and every read, so their keys sort on the stack.
func TestStringMapOfASmallMapDoesNotAllocate(t *testing.T) {
	m := map[string]string{"b": "2", "a": "1", "__next__": "x"}
	allocs := testing.AllocsPerRun(100, func() {
		var s rowsum.Sum
		s.StringMap(m)
	})
	require.Zero(t, allocs)
}
