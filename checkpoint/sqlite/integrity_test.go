package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// What a damage is seen by.
const (
	seenByRead   = "read"   // Get of the head, List and Verify: ErrCorrupt naming the checkpoint
	seenByList   = "list"   // List and Verify (a walk of the history), not Get
	seenByVerify = "verify" // Verify only
	harmless     = "harmless"
	// rollback: the thread reads as a consistent older history; no row
	// left says anything newer existed.
	rollback = "rollback"
)

// integrityCase damages one column (or row) of the history damagedHistory
// stores: checkpoints {a}, {b}, {h} (the head) of thread "t", a snapshot
// "i1" and deltas "i2", "i3" of "items", "n1" of "name", and writes at
// index 0 and -1 on {h}.
type integrityCase struct {
	name   string
	damage string // SQL; {a}, {b}, {h} are the ids, quoted
	seen   string
	names  string // the checkpoint the error names: "a", "b" or "h"; "h|b" for either
	thread string // the thread to read ("t" when empty)
	ns     string
	reason string // why harmless or a rollback
}

var sqliteIntegrityCases = []integrityCase{
	// checkpoints
	{name: "checkpoint thread_id of a middle row", damage: `UPDATE checkpoints SET thread_id = 'u' WHERE id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint thread_id of the head, read on the other thread", damage: `UPDATE checkpoints SET thread_id = 'u' WHERE id = {h}`, seen: seenByRead, names: "h", thread: "u"},
	{name: "checkpoint thread_id of the head, read on its thread", damage: `UPDATE checkpoints SET thread_id = 'u' WHERE id = {h}`, seen: rollback,
		reason: "the head leaving its thread is its deletion there (below)"},
	{name: "checkpoint ns of a middle row", damage: `UPDATE checkpoints SET ns = 'x' WHERE id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint ns of the head, read in the other namespace", damage: `UPDATE checkpoints SET ns = 'x' WHERE id = {h}`, seen: seenByRead, names: "h", ns: "x"},
	{name: "checkpoint id of the head", damage: `UPDATE checkpoints SET id = id || '0' WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint id of a middle row", damage: `UPDATE checkpoints SET id = id || '0' WHERE id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint parent_id", damage: `UPDATE checkpoints SET parent_id = {a} WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint parent_id cleared", damage: `UPDATE checkpoints SET parent_id = '' WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint created_at", damage: `UPDATE checkpoints SET created_at = created_at + 1 WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint versions re-pointed", damage: `UPDATE checkpoints SET versions = replace(versions, 'i3', 'i2') WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint versions respelled", damage: `UPDATE checkpoints SET versions = replace(versions, ':', ': ') WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint metadata", damage: `UPDATE checkpoints SET metadata = json_set(metadata, '$.step', 7) WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint prev", damage: `UPDATE checkpoints SET prev = {a} WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint prev NULL", damage: `UPDATE checkpoints SET prev = NULL WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites raised", damage: `UPDATE checkpoints SET nwrites = nwrites + 1 WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites lowered", damage: `UPDATE checkpoints SET nwrites = nwrites - 1 WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites NULL", damage: `UPDATE checkpoints SET nwrites = NULL WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint crc", damage: `UPDATE checkpoints SET crc = crc + 1 WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint crc NULL", damage: `UPDATE checkpoints SET crc = NULL WHERE id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint made to look legacy", damage: `UPDATE checkpoints SET crc = NULL, prev = NULL, nwrites = NULL WHERE id = {h}`, seen: seenByList, names: "h"},
	{name: "checkpoint of the middle deleted", damage: `DELETE FROM checkpoints WHERE id = {b}`, seen: seenByList, names: "b"},
	{name: "oldest checkpoint deleted", damage: `DELETE FROM checkpoints WHERE id = {a}`, seen: seenByList, names: "a"},
	{name: "head checkpoint deleted", damage: `DELETE FROM checkpoints WHERE id = {h}`, seen: rollback,
		reason: "SQLite keeps no row outside the checkpoints that names the head; PostgreSQL's heads row does"},
	// blobs
	{name: "blob thread_id", damage: `UPDATE blobs SET thread_id = 'u' WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob ns", damage: `UPDATE blobs SET ns = 'x' WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob channel", damage: `UPDATE blobs SET channel = 'name' WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob version", damage: `UPDATE blobs SET version = 'i4' WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob delta", damage: `UPDATE blobs SET delta = 0 WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob base", damage: `UPDATE blobs SET base = 'i1' WHERE version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob crc", damage: `UPDATE blobs SET crc = crc + 1 WHERE version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob data", damage: `UPDATE blobs SET data = CAST('"y"' AS BLOB) WHERE version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob deleted", damage: `DELETE FROM blobs WHERE version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob of the middle of a delta chain deleted", damage: `DELETE FROM blobs WHERE version = 'i2'`, seen: seenByRead, names: "h"},
	// writes
	{name: "write thread_id", damage: `UPDATE writes SET thread_id = 'u' WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write ns", damage: `UPDATE writes SET ns = 'x' WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write checkpoint_id", damage: `UPDATE writes SET checkpoint_id = {b} WHERE idx = 0`, seen: seenByRead, names: "h|b"},
	{name: "write checkpoint_id of no checkpoint", damage: `UPDATE writes SET checkpoint_id = 'zzz' WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write task_id", damage: `UPDATE writes SET task_id = 'other' WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write idx", damage: `UPDATE writes SET idx = 1 WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write channel", damage: `UPDATE writes SET channel = 'name' WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write crc", damage: `UPDATE writes SET crc = crc + 1 WHERE idx = -1`, seen: seenByRead, names: "h"},
	{name: "write value", damage: `UPDATE writes SET value = CAST('[5]' AS BLOB) WHERE idx = 0`, seen: seenByRead, names: "h"},
	{name: "write deleted", damage: `DELETE FROM writes WHERE idx = -1`, seen: seenByRead, names: "h"},
	{name: "write added", damage: `INSERT INTO writes SELECT thread_id, ns, checkpoint_id, task_id, 5, channel, crc, value FROM writes WHERE idx = 0`, seen: seenByRead, names: "h"},
	// harmless: a value of another SQLite type that reads back the same
	{name: "versions stored as text", damage: `UPDATE checkpoints SET versions = CAST(versions AS TEXT) WHERE id = {h}`, seen: harmless,
		reason: "the column is read as bytes: the same bytes, whatever the storage class"},
	{name: "blob with another thread's copy added", damage: `INSERT INTO blobs SELECT 'u', ns, channel, version, delta, base, crc, data FROM blobs WHERE version = 'n1'`, seen: harmless,
		reason: "a row of another thread is not read by this one"},
}

// TestDamageToAnyColumnOrRowIsErrCorrupt damages every column of every
// table, and deletes rows of a history, one at a time: each damage is
// ErrCorrupt naming the thread and the checkpoint on the reads that can
// see it, or reads as the table says and why.
func TestDamageToAnyColumnOrRowIsErrCorrupt(t *testing.T) {
	t.Parallel()
	for _, c := range sqliteIntegrityCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, ids := damagedHistory(t)
			byName := map[string]string{"a": ids[0], "b": ids[1], "h": ids[2]}
			before := listAll(t, s, "t", "")
			q := c.damage
			for k, id := range byName {
				q = strings.ReplaceAll(q, "{"+k+"}", "'"+id+"'")
			}
			res, err := rawDB(t, path).Exec(q)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Positive(t, n, "the damage hit a row")
			thread := c.thread
			if thread == "" {
				thread = "t"
			}
			var named []string
			for _, k := range strings.Split(c.names, "|") {
				named = append(named, byName[k])
			}
			checkDamage(t, s, c, thread, named, before, ids)
		})
	}
}

// checkDamage checks what the reads of thread and c.ns say after c's
// damage; before is the history as List read it before.
func checkDamage(t *testing.T, s interface {
	checkpoint.Saver
	checkpoint.Verifier
}, c integrityCase, thread string, named []string, before []*checkpoint.Tuple, ids []string) {
	t.Helper()
	ctx := context.Background()
	cfg := checkpoint.Config{ThreadID: thread, Namespace: c.ns}
	requireCorrupt := func(err error, what string) {
		t.Helper()
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
		require.Contains(t, err.Error(), `"`+thread+`"`, "%s: names the thread", what)
		n := 0
		for _, id := range named {
			n += strings.Count(err.Error(), id)
		}
		require.Positive(t, n, "%s: %v names the checkpoint %v", what, err, named)
	}
	listErr := func() error {
		for _, err := range s.List(ctx, cfg, checkpoint.ListOptions{}) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	switch c.seen {
	case seenByRead:
		_, err := s.Get(ctx, cfg)
		requireCorrupt(err, "get latest")
		fallthrough
	case seenByList:
		requireCorrupt(listErr(), "list")
		fallthrough
	case seenByVerify:
		requireCorrupt(s.Verify(ctx, thread), "verify")
	case harmless:
		require.NotEmpty(t, c.reason)
		require.Equal(t, before, listAll(t, s, thread, c.ns), "reads the same")
		require.NoError(t, s.Verify(ctx, thread))
	case rollback:
		require.NotEmpty(t, c.reason)
		require.Equal(t, before[1:], listAll(t, s, thread, c.ns), "reads as the history before its last step")
		tup, err := s.Get(ctx, cfg)
		require.NoError(t, err)
		require.Equal(t, ids[1], tup.Checkpoint.ID)
	default:
		t.Fatalf("unknown kind %q", c.seen)
	}
}

// listAll returns the whole history of (thread, ns).
func listAll(t *testing.T, s checkpoint.Saver, thread, ns string) []*checkpoint.Tuple {
	t.Helper()
	var out []*checkpoint.Tuple
	for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		out = append(out, tup)
	}
	return out
}

// TestVerifyChecksRowsNoReadReaches damages a blob that no checkpoint
// names any more and a write of a checkpoint that is gone: reads pass,
// Verify reports them.
func TestVerifyChecksRowsNoReadReaches(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, damage, want string }{
		{"blob no checkpoint names", `INSERT INTO blobs SELECT thread_id, ns, channel, 'i9', delta, base, crc, data FROM blobs WHERE version = 'i1'`, "i9"},
		{"write of a missing checkpoint", `INSERT INTO writes SELECT thread_id, ns, 'gone', task_id, idx, channel, crc, value FROM writes WHERE idx = 0`, "gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, _ := damagedHistory(t)
			_, err := rawDB(t, path).Exec(c.damage)
			require.NoError(t, err)
			err = s.Verify(context.Background(), "t")
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// TestVerifyPassesWhatTheSaverWrote: Verify of a history with writes,
// namespaces, a copy and a pruned thread is nil, and of an unknown thread
// too.
func TestVerifyPassesWhatTheSaverWrote(t *testing.T) {
	t.Parallel()
	s, _, ids := damagedHistory(t)
	ctx := context.Background()
	sub := checkpoint.Config{ThreadID: "t", Namespace: "sub:1"}
	_, err := s.Put(ctx, checkpoint.PutRequest{Config: sub, Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()}})
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx, "t"))
	require.NoError(t, s.Verify(ctx, "unknown"))
	require.NoError(t, s.CopyThread(ctx, "t", "copy"))
	require.NoError(t, s.Verify(ctx, "copy"))
	require.Equal(t, listAll(t, s, "t", "")[0].Checkpoint, listAll(t, s, "copy", "")[0].Checkpoint)
	require.NoError(t, s.Prune(ctx, "t", 2))
	require.NoError(t, s.Verify(ctx, "t"))
	got := listAll(t, s, "t", "")
	require.Len(t, got, 2)
	require.Equal(t, ids[2], got[0].Checkpoint.ID)
	var _ checkpoint.Verifier = (*sqlite.Saver)(nil)
}

// TestListAcrossAPruneIsNoDamage prunes, or deletes, the thread between
// two pages of a List: the walk sees the history change under it, which
// is not damage.
func TestListAcrossAPruneIsNoDamage(t *testing.T) {
	t.Parallel()
	for _, keep := range []int{6, 10, 0} {
		s := openTemp(t)
		ctx := context.Background()
		parent := ""
		for i := range 12 {
			parent = put(t, s, "t", parent, nil, nil, checkpoint.Metadata{Step: i})
		}
		n := 0
		for _, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
			require.NoError(t, err, "keep %d", keep)
			if n++; n == 8 { // the last of the first page
				if keep == 0 {
					require.NoError(t, s.DeleteThread(ctx, "t"))
				} else {
					require.NoError(t, s.Prune(ctx, "t", keep))
				}
			}
		}
		require.GreaterOrEqual(t, n, 8)
		require.NoError(t, s.Verify(ctx, "t"))
	}
}
