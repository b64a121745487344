package sqlite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/internal/procid"
)

// goneProcess returns the procid of a process of this machine that has
// ended: a child that ran and was waited for.
func goneProcess(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("a process is known gone only on Linux")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	host, _, _ := strings.Cut(procid.Self(), "/")
	return host + "/" + strconv.Itoa(cmd.Process.Pid) + "/1"
}

// TestLeaseOfAnEndedProcessIsTakenAtOnce: a lease whose process was
// killed holding it is not live, though its expiry is far: the next run
// on the thread (a restarted server) takes it at once.
func TestLeaseOfAnEndedProcessIsTakenAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	db := rawDB(t, path)
	far := time.Now().Add(time.Hour).UnixNano()
	for _, c := range []struct {
		thread, token string
		live          bool
	}{
		{"killed", "lease-1 " + goneProcess(t), false},
		{"alive", "lease-2 " + procid.Self(), true},
		{"elsewhere", "lease-3 other-host@boot/1/1", true},
		{"old-release", "lease-4", true}, // no process named: expiry only
	} {
		_, err := db.Exec(`INSERT INTO leases (thread_id, token, holder, since, expires) VALUES (?, ?, ?, ?, ?)`,
			c.thread, c.token, "holder-of-"+c.thread, time.Now().UnixNano(), far)
		require.NoError(t, err)
		info, err := s.LeaseOf(ctx, c.thread)
		require.NoError(t, err)
		_, err = s.Lease(ctx, c.thread, "next", time.Minute)
		if c.live {
			require.NotNil(t, info, c.thread)
			require.ErrorIs(t, err, checkpoint.ErrBusy, c.thread)
			continue
		}
		require.Nil(t, info, "%s: the lease of an ended process is not shown", c.thread)
		require.NoError(t, err, "%s: the lease of an ended process is taken at once", c.thread)
		info, err = s.LeaseOf(ctx, c.thread)
		require.NoError(t, err)
		require.Equal(t, "next", info.Holder)
	}
}

// TestLeaseReleaseThatFailsStillFreesTheThreadForItsSaver: a run whose
// release cannot write (a full disk, here a trigger refusing the delete)
// has still given its lease up: the next run of the same Saver takes the
// thread at once, while other processes wait for the expiry as before.
func TestLeaseReleaseThatFailsStillFreesTheThreadForItsSaver(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	other, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	ctx := context.Background()
	a, err := s.Lease(ctx, "t", "run-a", time.Minute)
	require.NoError(t, err)
	db := rawDB(t, path)
	_, err = db.Exec(`CREATE TRIGGER full BEFORE DELETE ON leases BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`)
	require.NoError(t, err)
	err = a.Release(ctx)
	require.ErrorContains(t, err, "disk is full")
	require.NotErrorIs(t, err, checkpoint.ErrLeaseLost)

	_, err = other.Lease(ctx, "t", "run-elsewhere", time.Minute)
	require.ErrorIs(t, err, checkpoint.ErrBusy, "another process does not know the lease was given up")
	b, err := s.Lease(ctx, "t", "run-b", time.Minute)
	require.NoError(t, err, "the Saver whose release failed takes the thread at once")
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost, "the given-up lease stays given up")
	_, err = db.Exec(`DROP TRIGGER full`)
	require.NoError(t, err)
	require.NoError(t, b.Release(ctx))
}
