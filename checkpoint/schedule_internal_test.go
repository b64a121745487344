package checkpoint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseNodesOnlyAgreesWithJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		nodes []string
		ok    bool
	}{
		{`{}`, nil, true},
		{`{"nodes":["a"]}`, []string{"a"}, true},
		{`{"nodes":["a","b c","é"]}`, []string{"a", "b c", "é"}, true},
		{`{"nodes":["a,b"]}`, nil, false},
		{`{"nodes":["x\",\"y"]}`, nil, false},
		{`{"nodes":[]}`, nil, false},
		{`{"sends":[]}`, nil, false},
		{`{"nodes":["a"],"joins":{}}`, nil, false},
		{`["a"]`, []string{"a"}, true},
		{`["a","b c","é"]`, []string{"a", "b c", "é"}, true},
		{`["a,b"]`, nil, false},
		{`["x\",\"y"]`, nil, false},
		{`[]`, nil, false},
		{`["a"]]`, nil, false},
	}
	for _, c := range cases {
		nodes, ok := parseNodesOnly([]byte(c.in))
		require.Equal(t, c.ok, ok, c.in)
		require.Equal(t, c.nodes, nodes, c.in)
	}
}
