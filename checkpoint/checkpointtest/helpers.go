package checkpointtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// newThreadID returns a thread id no other test uses, so savers sharing a
// database do not see each other's data.
func newThreadID() string { return "cptest-" + uuid.NewString() }

// full is a blob holding a whole value.
func full(version, data string) checkpoint.Blob {
	return checkpoint.Blob{Version: version, Data: []byte(data)}
}

// delta is a blob holding the elements appended since base.
func delta(version, base, data string) checkpoint.Blob {
	return checkpoint.Blob{Version: version, Data: []byte(data), Delta: true, Base: base}
}

// versionsOf returns the versions of blobs, for a checkpoint whose every
// channel is new.
func versionsOf(blobs map[string]checkpoint.Blob) map[string]string {
	v := make(map[string]string, len(blobs))
	for ch, b := range blobs {
		v[ch] = b.Version
	}
	return v
}

// step describes one checkpoint to put.
type step struct {
	ns       string
	id       string // "" for a fresh id
	parent   string // parent checkpoint id; also ExpectHead unless head is set
	head     *string
	versions map[string]string // nil: versionsOf(blobs)
	blobs    map[string]checkpoint.Blob
	md       checkpoint.Metadata
}

// request builds the PutRequest for st on thread, with a fresh id unless
// st.id is set.
func (st step) request(thread string) checkpoint.PutRequest {
	versions := st.versions
	if versions == nil {
		versions = versionsOf(st.blobs)
	}
	head := st.parent
	if st.head != nil {
		head = *st.head
	}
	md := st.md
	if md.Source == "" {
		md.Source = checkpoint.SourceLoop
	}
	id := st.id
	if id == "" {
		id = checkpoint.NewID()
	}
	return checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: thread, Namespace: st.ns, CheckpointID: st.parent},
		Checkpoint: checkpoint.Checkpoint{
			ID:        id,
			CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
			Versions:  versions,
			New:       st.blobs,
		},
		Metadata:   md,
		ExpectHead: head,
	}
}

// mustPut stores st on thread and returns the new checkpoint's id.
func mustPut(tb testing.TB, s checkpoint.Saver, thread string, st step) string {
	tb.Helper()
	req := st.request(thread)
	cfg, err := s.Put(context.Background(), req)
	require.NoError(tb, err, "put %s on thread %q ns %q", req.Checkpoint.ID, thread, st.ns)
	require.Equal(tb, checkpoint.Config{ThreadID: thread, Namespace: st.ns, CheckpointID: req.Checkpoint.ID}, cfg,
		"Put returns the config of the stored checkpoint")
	return req.Checkpoint.ID
}

// putChain stores n checkpoints on (thread, ns), each the child of the
// previous, with metadata from md(i), and returns their ids oldest first.
// Checkpoint i sets channel "n" to i.
func putChain(tb testing.TB, s checkpoint.Saver, thread, ns string, n int, md func(i int) checkpoint.Metadata) []string {
	tb.Helper()
	ids := make([]string, 0, n)
	parent := ""
	for i := range n {
		v := "n" + itoa(i)
		m := checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i}
		if md != nil {
			m = md(i)
		}
		parent = mustPut(tb, s, thread, step{ns: ns, parent: parent, blobs: map[string]checkpoint.Blob{"n": full(v, itoa(i))}, md: m})
		ids = append(ids, parent)
	}
	return ids
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// mustGet returns the tuple for cfg.
func mustGet(tb testing.TB, s checkpoint.Saver, cfg checkpoint.Config) *checkpoint.Tuple {
	tb.Helper()
	tup, err := s.Get(context.Background(), cfg)
	require.NoError(tb, err, "get %+v", cfg)
	require.NotNil(tb, tup, "get %+v", cfg)
	return tup
}

// requireNotFound asserts that err is ErrNotFound and names the thread.
func requireNotFound(tb testing.TB, err error, thread string, msgAndArgs ...any) {
	tb.Helper()
	require.ErrorIs(tb, err, checkpoint.ErrNotFound, msgAndArgs...)
	require.Contains(tb, err.Error(), thread, "the error names the thread")
}

// requireConflict asserts that err is ErrConflict and names the thread.
func requireConflict(tb testing.TB, err error, thread string, msgAndArgs ...any) {
	tb.Helper()
	require.ErrorIs(tb, err, checkpoint.ErrConflict, msgAndArgs...)
	require.Contains(tb, err.Error(), thread, "the error names the thread")
}

// collect drains a List.
func collect(tb testing.TB, s checkpoint.Saver, cfg checkpoint.Config, opts checkpoint.ListOptions) []*checkpoint.Tuple {
	tb.Helper()
	var out []*checkpoint.Tuple
	for tup, err := range s.List(context.Background(), cfg, opts) {
		require.NoError(tb, err, "list %+v %+v", cfg, opts)
		require.NotNil(tb, tup)
		out = append(out, tup)
	}
	return out
}

// listIDs drains a List and returns the checkpoint ids in order.
func listIDs(tb testing.TB, s checkpoint.Saver, cfg checkpoint.Config, opts checkpoint.ListOptions) []string {
	tb.Helper()
	ids := []string{}
	for _, tup := range collect(tb, s, cfg, opts) {
		ids = append(ids, tup.Checkpoint.ID)
	}
	return ids
}

// reversed returns ids newest first.
func reversed(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[len(ids)-1-i] = id
	}
	return out
}

// val is an expected channel value: a snapshot and deltas, oldest first.
type val struct {
	version  string
	snapshot string
	deltas   []string
}

// requireValues asserts that got holds exactly the channels of want with
// their values. nil and empty byte slices are equal.
func requireValues(tb testing.TB, want map[string]val, got map[string]checkpoint.Value, msgAndArgs ...any) {
	tb.Helper()
	require.Len(tb, got, len(want), msgAndArgs...)
	for ch, w := range want {
		g, ok := got[ch]
		require.True(tb, ok, "channel %q missing from Values %v", ch, msgAndArgs)
		require.Equal(tb, w.version, g.Version, "version of channel %q %v", ch, msgAndArgs)
		requireBytes(tb, []byte(w.snapshot), g.Snapshot, "snapshot of channel %q %v", ch, msgAndArgs)
		require.Len(tb, g.Deltas, len(w.deltas), "deltas of channel %q %v", ch, msgAndArgs)
		for i, d := range w.deltas {
			requireBytes(tb, []byte(d), g.Deltas[i], "delta %d of channel %q %v", i, ch, msgAndArgs)
		}
	}
}

// requireBytes compares byte slices, treating nil and empty as equal.
func requireBytes(tb testing.TB, want, got []byte, msgAndArgs ...any) {
	tb.Helper()
	if !bytes.Equal(want, got) {
		require.Equal(tb, want, got, msgAndArgs...)
	}
}

// requireMetadata compares metadata after a JSON round trip.
func requireMetadata(tb testing.TB, want, got checkpoint.Metadata) {
	tb.Helper()
	w, err := json.Marshal(want)
	require.NoError(tb, err)
	g, err := json.Marshal(got)
	require.NoError(tb, err)
	require.JSONEq(tb, string(w), string(g), "metadata round trip")
}

// write is a pending write's expected content.
type write struct {
	task    string
	index   int
	channel string
	value   string
}

// requireWrites asserts that got holds exactly want, in order.
func requireWrites(tb testing.TB, want []write, got []checkpoint.PendingWrite, msgAndArgs ...any) {
	tb.Helper()
	require.Len(tb, got, len(want), msgAndArgs...)
	for i, w := range want {
		g := got[i]
		require.Equal(tb, w.task, g.TaskID, "task of write %d %v", i, msgAndArgs)
		require.Equal(tb, w.index, g.Index, "index of write %d %v", i, msgAndArgs)
		require.Equal(tb, w.channel, g.Channel, "channel of write %d %v", i, msgAndArgs)
		requireBytes(tb, []byte(w.value), g.Value, "value of write %d %v", i, msgAndArgs)
	}
}

// pw builds a pending write.
func pw(task string, index int, channel, value string) checkpoint.PendingWrite {
	return checkpoint.PendingWrite{TaskID: task, Index: index, Channel: channel, Value: []byte(value)}
}

// errIsCancelled reports whether err is nil or wraps context.Canceled.
func errIsCancelled(err error) bool {
	return err == nil || errors.Is(err, context.Canceled)
}

// requireSameTuple asserts that two tuples hold the same checkpoint, as
// the suite compares them (bytes, metadata and times as documented).
func requireSameTuple(tb testing.TB, want, got *checkpoint.Tuple, msgAndArgs ...any) {
	tb.Helper()
	require.Equal(tb, want.Config, got.Config, msgAndArgs...)
	require.Equal(tb, want.Parent, got.Parent, msgAndArgs...)
	require.Equal(tb, want.Checkpoint.ID, got.Checkpoint.ID, msgAndArgs...)
	require.True(tb, want.Checkpoint.CreatedAt.Equal(got.Checkpoint.CreatedAt), "CreatedAt %v", msgAndArgs)
	require.Equal(tb, want.Checkpoint.Versions, got.Checkpoint.Versions, msgAndArgs...)
	wantValues := make(map[string]val, len(want.Checkpoint.Values))
	for ch, v := range want.Checkpoint.Values {
		w := val{version: v.Version, snapshot: string(v.Snapshot)}
		for _, d := range v.Deltas {
			w.deltas = append(w.deltas, string(d))
		}
		wantValues[ch] = w
	}
	requireValues(tb, wantValues, got.Checkpoint.Values, msgAndArgs...)
	requireMetadata(tb, want.Metadata, got.Metadata)
	wantWrites := make([]write, len(want.PendingWrites))
	for i, w := range want.PendingWrites {
		wantWrites[i] = write{w.TaskID, w.Index, w.Channel, string(w.Value)}
	}
	requireWrites(tb, wantWrites, got.PendingWrites, msgAndArgs...)
}
