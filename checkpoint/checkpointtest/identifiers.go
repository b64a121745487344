package checkpointtest

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var identifierTests = []test{
	{name: "EdgeCasesRoundTrip", fn: testIdentifiersEdgeCases},
	{name: "VeryLongRandomThreadID", fnh: testIdentifiersVeryLongRandomThreadID},
	{name: "EmptyThreadIDIsRefusedOrWorks", fn: testIdentifiersEmptyThreadID},
	{name: "NULAndInvalidUTF8AreRefusedOrRoundTrip", fn: testIdentifiersNULAndInvalidUTF8},
}

// roundTripThread stores a small history on (thread, ns) and checks it reads
// back exactly, with the config fields unchanged.
func roundTripThread(t *testing.T, s checkpoint.Saver, thread, ns string) {
	t.Helper()
	ctx := context.Background()
	a := mustPut(t, s, thread, step{ns: ns, blobs: map[string]checkpoint.Blob{"items": full("i1", `["a"]`), "name": full("n1", `"x"`)}})
	b := mustPut(t, s, thread, step{ns: ns, parent: a, versions: map[string]string{"items": "i2", "name": "n1"},
		blobs: map[string]checkpoint.Blob{"items": delta("i2", "i1", `["b"]`)}, md: checkpoint.Metadata{Step: 1, Extra: map[string]any{"who": thread}}})
	cfgB := checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: b}
	require.NoError(t, s.PutWrites(ctx, cfgB, "task", []checkpoint.PendingWrite{pending(0, "items", `["c"]`)}))

	for _, cfg := range []checkpoint.Config{{ThreadID: thread, Namespace: ns}, cfgB} {
		tup := mustGet(t, s, cfg)
		require.Equal(t, cfgB, tup.Config)
		require.Equal(t, &checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: a}, tup.Parent)
		require.Equal(t, map[string]flat{"items": flatVal("i2", `["a"]`, `["b"]`), "name": flatVal("n1", `"x"`)}, flatValues(tup.Checkpoint.Values))
		require.Equal(t, []flatWrite{{"task", 0, "items", `["c"]`}}, flatWrites(tup.PendingWrites))
	}
	got := collect(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{Filter: map[string]any{"who": thread}})
	require.Len(t, got, 1)
	require.Equal(t, cfgB, got[0].Config)
	require.Equal(t, []string{b, a}, listIDs(t, s, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}))
}

func testIdentifiersEdgeCases(t *testing.T, s checkpoint.Saver) {
	u := uuid.NewString()
	cases := []struct{ name, thread, ns string }{
		{"unicode", "スレッド-🧵-" + u, "子:1|孫:2"},
		{"sql and LIKE metacharacters", `a'b"c;--%_\` + u, `ns'%_\*`},
		{"json-looking", `{"thread_id":"` + u + `"}`, `["ns"]`},
		{"whitespace", " " + u + "\t\n", " "},
		{"long", u + strings.Repeat("長", 700), strings.Repeat("n", 1000)},
		{"path-like", "/threads/../" + u, "a/b:c|d"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			roundTripThread(t, s, c.thread, c.ns)
			// Neighbours whose ids differ by a wildcard, a prefix or case
			// see nothing of it, and it sees nothing of theirs.
			runes := []rune(c.thread)
			for _, other := range []string{c.thread + "%", string(runes[:len(runes)-1]), strings.ToUpper(c.thread)} {
				if other == c.thread {
					continue
				}
				require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: other, Namespace: c.ns}, checkpoint.ListOptions{}), "thread %q", other)
				_, err := s.Get(context.Background(), checkpoint.Config{ThreadID: other, Namespace: c.ns})
				require.ErrorIs(t, err, checkpoint.ErrNotFound)
			}
			require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: c.thread}, checkpoint.ListOptions{}), "the root namespace of %q is empty", c.thread)
			require.NoError(t, s.DeleteThread(context.Background(), c.thread))
			require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: c.thread, Namespace: c.ns}, checkpoint.ListOptions{}))
		})
	}
}

// testIdentifiersVeryLongRandomThreadID: a thread id beyond a backend's documented
// limit is refused by Put, storing nothing; otherwise it round-trips.
// (PostgreSQL refuses it with postgres.ErrLimit: its index entries hold
// about 2.7 kB.)
func testIdentifiersVeryLongRandomThreadID(t *testing.T, s checkpoint.Saver, h *Harness) {
	// 4 kB of random hex: it does not compress, so a database cannot
	// squeeze it into an index entry.
	thread := "cptest-" + hex.EncodeToString(randomBytes(t, 2048))
	ns := hex.EncodeToString(randomBytes(t, 64))
	req := step{ns: ns, blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}}.request(thread)
	if _, err := s.Put(context.Background(), req); err != nil {
		t.Logf("refused: %v", err)
		require.True(t, h.isLimit(err), "a refusal names the limit: %v", err)
		_, err := s.Get(context.Background(), checkpoint.Config{ThreadID: thread, Namespace: ns})
		require.ErrorIs(t, err, checkpoint.ErrNotFound, "a refused Put stores nothing")
		return
	}
	require.NoError(t, s.DeleteThread(context.Background(), thread))
	roundTripThread(t, s, thread, ns)
}

// testIdentifiersEmptyThreadID: the contract says nothing about an empty thread id; a
// saver either refuses it or treats it like any other.
func testIdentifiersEmptyThreadID(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	ns := "cptest-" + uuid.NewString() // the empty thread may be shared
	req := step{ns: ns, blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}}.request("")
	if _, err := s.Put(ctx, req); err != nil {
		t.Logf("Put with an empty thread id is refused: %v", err)
		return
	}
	tup := mustGet(t, s, checkpoint.Config{Namespace: ns})
	require.Equal(t, req.Checkpoint.ID, tup.Checkpoint.ID)
	require.Equal(t, []string{req.Checkpoint.ID}, listIDs(t, s, checkpoint.Config{Namespace: ns}, checkpoint.ListOptions{}))
}

// testIdentifiersNULAndInvalidUTF8: ids a database text type cannot hold are
// either refused by Put, storing nothing, or round-trip exactly.
func testIdentifiersNULAndInvalidUTF8(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	u := uuid.NewString()
	cases := []struct{ name, thread, ns string }{
		{"NUL in thread", "a\x00b-" + u, ""},
		{"NUL in namespace", "cptest-" + u + "-1", "child\x00:1"},
		{"invalid UTF-8 thread", "\xff\xfe-" + u, ""},
		{"invalid UTF-8 namespace", "cptest-" + u + "-2", "\xc3\x28"},
	}
	for _, c := range cases {
		req := step{ns: c.ns, blobs: map[string]checkpoint.Blob{"a": full("a1", "1")}}.request(c.thread)
		if _, err := s.Put(ctx, req); err != nil {
			t.Logf("%s: refused: %v", c.name, err)
			_, err := s.Get(ctx, checkpoint.Config{ThreadID: c.thread, Namespace: c.ns})
			require.Error(t, err, c.name)
			continue
		}
		tup := mustGet(t, s, checkpoint.Config{ThreadID: c.thread, Namespace: c.ns})
		require.Equal(t, checkpoint.Config{ThreadID: c.thread, Namespace: c.ns, CheckpointID: req.Checkpoint.ID}, tup.Config, c.name)
		require.NoError(t, s.PutWrites(ctx, tup.Config, "t", []checkpoint.PendingWrite{pending(0, "a", "2")}), c.name)
		require.Len(t, mustGet(t, s, tup.Config).PendingWrites, 1, c.name)
		require.NoError(t, s.DeleteThread(ctx, c.thread), c.name)
	}
}
