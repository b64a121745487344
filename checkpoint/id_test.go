package checkpoint

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestNewIDIsStrictlyIncreasing(t *testing.T) {
	t.Parallel()
	prev := NewID()
	for range 10000 {
		id := NewID()
		require.Greater(t, id, prev)
		u, err := uuid.Parse(id)
		require.NoError(t, err)
		require.Equal(t, uuid.Version(7), u.Version())
		require.Equal(t, uuid.RFC4122, u.Variant())
		prev = id
	}
}

func TestNextCarries(t *testing.T) {
	t.Parallel()
	u := uuid.MustParse("01890000-0000-7fff-bfff-ffffffffffff")
	n := uuid.UUID(next(u))
	require.Greater(t, n.String(), u.String())
	require.Equal(t, uuid.Version(7), n.Version())
	require.Equal(t, uuid.RFC4122, n.Variant())
}

func TestMetadataMatches(t *testing.T) {
	t.Parallel()
	md := Metadata{Source: SourceLoop, Step: 3, RunID: "r1", Extra: map[string]any{"user": "ann", "n": 2}}
	cases := []struct {
		filter map[string]any
		want   bool
	}{
		{nil, true},
		{map[string]any{"source": "loop"}, true},
		{map[string]any{"source": SourceLoop, "step": 3}, true},
		{map[string]any{"step": 4}, false},
		{map[string]any{"user": "ann", "n": 2.0}, true},
		{map[string]any{"user": "bob"}, false},
		{map[string]any{"missing": 1}, false},
		{map[string]any{"run_id": "r1"}, true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, md.Matches(c.filter), "%v", c.filter)
	}
}

func TestDeriveIDIsStable(t *testing.T) {
	t.Parallel()
	a := DeriveID("cp", "", "3", "node")
	require.Equal(t, a, DeriveID("cp", "", "3", "node"))
	require.NotEqual(t, a, DeriveID("cp", "", "3", "other"))
	require.NotEqual(t, DeriveID("ab", "c"), DeriveID("a", "bc"))
	u, err := uuid.Parse(a)
	require.NoError(t, err)
	require.Equal(t, uuid.Version(5), u.Version())
}

func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = NewID()
	}
}
