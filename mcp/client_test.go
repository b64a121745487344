package mcp_test

import (
	"errors"
	"net"
	"testing"

	"github.com/stategraph/stategraph/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConnectFailuresNameTheServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/mcp"
	require.NoError(t, ln.Close())
	for _, tc := range []struct {
		name string
		srv  mcp.Server
		want string
		down bool
	}{
		{"nothing to reach", mcp.Server{Name: "none"}, `mcp: server "none": give exactly one of Command, URL and Transport`, false},
		{"two ways", mcp.Server{Name: "both", Command: "x", URL: "http://x"}, `give exactly one`, false},
		{"no such program", mcp.Server{Name: "ghost", Command: "/nonexistent/mcp-server"}, `mcp: server "ghost" is down: connect: `, true},
		{"nobody listening", mcp.Server{Name: "gone", URL: closed}, `mcp: server "gone" is down: connect: `, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := mcp.Connect(t.Context(), tc.srv)
			require.Nil(t, c)
			require.ErrorContains(t, err, tc.want)
			assert.Equal(t, tc.down, errors.Is(err, mcp.ErrServerDown))
		})
	}
}
