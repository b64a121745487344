package procid

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSelfIsNotGone(t *testing.T) {
	t.Parallel()
	require.False(t, Gone(Self()))
	require.NotContains(t, Self(), " ")
}

func TestGoneNamesOnlyProcessesKnownEnded(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("procid knows processes gone only on Linux")
	}
	// A child that has exited and been waited for has no process now.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	h, _, _ := strings.Cut(Self(), "/")
	exited := h + "/" + strconv.Itoa(cmd.Process.Pid) + "/" + "1"
	self := strings.Split(Self(), "/")
	for _, c := range []struct {
		name string
		id   string
		gone bool
	}{
		{"this process", Self(), false},
		{"an exited child", exited, true},
		{"this pid started at another time (a reused pid)", self[0] + "/" + self[1] + "/" + self[2] + "0", true},
		{"the parent, alive", h + "/" + strconv.Itoa(os.Getppid()) + "/" + startOf(os.Getppid()), false},
		{"another machine", "elsewhere@boot/" + strconv.Itoa(cmd.Process.Pid) + "/1", false},
		{"this machine in an earlier boot", strings.Split(h, "@")[0] + "@old-boot/1/1", false},
		{"malformed", "nonsense", false},
		{"no start time", h + "/notanumber/", false},
	} {
		require.Equal(t, c.gone, Gone(c.id), c.name)
	}
}
