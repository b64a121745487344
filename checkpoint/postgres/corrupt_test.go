package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// What a damage is seen by.
const (
	seenByRead   = "read"   // Get of the head, List and Verify: ErrCorrupt naming the checkpoint
	seenByList   = "list"   // List and Verify (a walk of the history), not Get
	seenByVerify = "verify" // Verify only
	harmless     = "harmless"
)

// integrityCase damages one column (or row) of the history integrityHistory
// stores: checkpoints {a}, {b}, {h} (the head) of thread $1, a snapshot
// "i1" and deltas "i2", "i3" of "items", "n1" of "name", and writes at
// index 0 and -1 on {h}. {cps}, {blobs}, {writes} and {heads} are the
// tables.
type integrityCase struct {
	name   string
	damage string
	seen   string
	names  string // the checkpoints the error may name: "h", "b|h"
	other  bool   // read the thread $1 || '-u' rather than $1
	ns     string
	reason string // why harmless
}

var postgresIntegrityCases = []integrityCase{
	// heads
	{name: "head re-pointed", damage: `UPDATE {heads} SET head = {b} WHERE thread_id = $1`, seen: seenByRead, names: "h|b"},
	{name: "head row deleted", damage: `DELETE FROM {heads} WHERE thread_id = $1`, seen: seenByRead, names: "h"},
	{name: "head thread_id", damage: `UPDATE {heads} SET thread_id = $1 || '-u' WHERE thread_id = $1`, seen: seenByRead, names: "h"},
	{name: "head ns", damage: `UPDATE {heads} SET ns = 'x' WHERE thread_id = $1`, seen: seenByRead, names: "h"},
	// checkpoints
	{name: "checkpoint thread_id of the head", damage: `UPDATE {cps} SET thread_id = $1 || '-u' WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint thread_id of a middle row", damage: `UPDATE {cps} SET thread_id = $1 || '-u' WHERE thread_id = $1 AND id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint thread_id of a middle row, read on the other thread", damage: `UPDATE {cps} SET thread_id = $1 || '-u' WHERE thread_id = $1 AND id = {b}`, seen: seenByList, names: "b", other: true},
	{name: "checkpoint ns of a middle row", damage: `UPDATE {cps} SET ns = 'x' WHERE thread_id = $1 AND id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint id of the head", damage: `UPDATE {cps} SET id = id || '0' WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint id of a middle row", damage: `UPDATE {cps} SET id = id || '0' WHERE thread_id = $1 AND id = {b}`, seen: seenByList, names: "b"},
	{name: "checkpoint parent_id", damage: `UPDATE {cps} SET parent_id = {a} WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint parent_id NULL", damage: `UPDATE {cps} SET parent_id = NULL WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint created_at", damage: `UPDATE {cps} SET created_at = created_at + interval '1 microsecond' WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint versions re-pointed", damage: `UPDATE {cps} SET versions = jsonb_set(versions, '{items}', '"i2"') WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint versions with a channel more", damage: `UPDATE {cps} SET versions = versions || '{"name2": "n1"}' WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint metadata", damage: `UPDATE {cps} SET metadata = jsonb_set(metadata, '{step}', '7') WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint metadata one bit", damage: `UPDATE {cps} SET metadata = jsonb_set(metadata, '{source}', '"lnop"') WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint filter", damage: `UPDATE {cps} SET filter = jsonb_set(filter, '{step}', '7') WHERE thread_id = $1 AND id = {h}`, seen: seenByVerify, names: "h"},
	{name: "checkpoint prev", damage: `UPDATE {cps} SET prev = {a} WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint prev NULL", damage: `UPDATE {cps} SET prev = NULL WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites raised", damage: `UPDATE {cps} SET nwrites = nwrites + 1 WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites lowered", damage: `UPDATE {cps} SET nwrites = nwrites - 1 WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint nwrites NULL", damage: `UPDATE {cps} SET nwrites = NULL WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint crc", damage: `UPDATE {cps} SET crc = crc + 1 WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint crc NULL", damage: `UPDATE {cps} SET crc = NULL WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint made to look legacy", damage: `UPDATE {cps} SET crc = NULL, prev = NULL, nwrites = NULL WHERE thread_id = $1 AND id = {h}`, seen: seenByList, names: "h"},
	{name: "head checkpoint deleted", damage: `DELETE FROM {cps} WHERE thread_id = $1 AND id = {h}`, seen: seenByRead, names: "h"},
	{name: "checkpoint of the middle deleted", damage: `DELETE FROM {cps} WHERE thread_id = $1 AND id = {b}`, seen: seenByList, names: "b"},
	{name: "oldest checkpoint deleted", damage: `DELETE FROM {cps} WHERE thread_id = $1 AND id = {a}`, seen: seenByList, names: "a"},
	// blobs
	{name: "blob thread_id", damage: `UPDATE {blobs} SET thread_id = $1 || '-u' WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob ns", damage: `UPDATE {blobs} SET ns = 'x' WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob channel", damage: `UPDATE {blobs} SET channel = 'name' WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob version", damage: `UPDATE {blobs} SET version = 'i4' WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob data one bit, still valid JSON", damage: `UPDATE {blobs} SET data = '"y"'::bytea WHERE thread_id = $1 AND version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob delta", damage: `UPDATE {blobs} SET delta = false WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob base", damage: `UPDATE {blobs} SET base = 'i1' WHERE thread_id = $1 AND version = 'i3'`, seen: seenByRead, names: "h"},
	{name: "blob base cleared", damage: `UPDATE {blobs} SET base = '' WHERE thread_id = $1 AND version = 'i2'`, seen: seenByRead, names: "h"},
	{name: "blob crc", damage: `UPDATE {blobs} SET crc = crc + 1 WHERE thread_id = $1 AND version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob deleted", damage: `DELETE FROM {blobs} WHERE thread_id = $1 AND version = 'n1'`, seen: seenByRead, names: "h"},
	{name: "blob of the middle of a delta chain deleted", damage: `DELETE FROM {blobs} WHERE thread_id = $1 AND version = 'i2'`, seen: seenByRead, names: "h"},
	// writes
	{name: "write thread_id", damage: `UPDATE {writes} SET thread_id = $1 || '-u' WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write ns", damage: `UPDATE {writes} SET ns = 'x' WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write checkpoint_id", damage: `UPDATE {writes} SET checkpoint_id = {b} WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h|b"},
	{name: "write task_id", damage: `UPDATE {writes} SET task_id = 'other' WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write idx", damage: `UPDATE {writes} SET idx = 1 WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write channel", damage: `UPDATE {writes} SET channel = 'name' WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write value", damage: `UPDATE {writes} SET value = '[5]'::bytea WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	{name: "write crc", damage: `UPDATE {writes} SET crc = crc + 1 WHERE thread_id = $1 AND idx = -1`, seen: seenByRead, names: "h"},
	{name: "write crc NULL", damage: `UPDATE {writes} SET crc = NULL WHERE thread_id = $1 AND idx = -1`, seen: seenByRead, names: "h"},
	{name: "write deleted", damage: `DELETE FROM {writes} WHERE thread_id = $1 AND idx = -1`, seen: seenByRead, names: "h"},
	{name: "write added", damage: `INSERT INTO {writes} SELECT thread_id, ns, checkpoint_id, task_id, 5, channel, value, crc FROM {writes} WHERE thread_id = $1 AND idx = 0`, seen: seenByRead, names: "h"},
	// harmless
	{name: "parent_id NULL written as empty", damage: `UPDATE {cps} SET parent_id = '' WHERE thread_id = $1 AND id = {a}`, seen: harmless,
		reason: "NULL and '' both read as no parent, and the checksum covers the parent as read"},
	{name: "blob crc NULL", damage: `UPDATE {blobs} SET crc = NULL WHERE thread_id = $1 AND version = 'n1'`, seen: harmless,
		reason: "reads as a blob written before migration 2, with its data as stored; a blob of an older checkpoint may rightly have none"},
}

// integrityHistory stores the history the integrity cases damage and
// returns its ids: a, b, head.
func integrityHistory(t *testing.T, s *postgres.Saver, thread string) []string {
	t.Helper()
	a := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"items": fullBlob("i1", "[1]"), "name": fullBlob("n1", `"x"`)}))
	b := mustPut(t, s, putReq(thread, a, map[string]string{"items": "i1", "name": "n1"}, map[string]checkpoint.Blob{"items": deltaBlob("i2", "i1", "[2]")}))
	h := mustPut(t, s, putReq(thread, b, map[string]string{"items": "i2", "name": "n1"}, map[string]checkpoint.Blob{"items": deltaBlob("i3", "i2", "[3]")}))
	require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: h}, "task",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`[4]`)}, {Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`"e"`)}}))
	return []string{a, b, h}
}

// TestDamageToAnyColumnOrRowIsErrCorrupt damages every column of every
// table, and deletes rows of a history, one at a time: each damage is
// ErrCorrupt naming the thread and the checkpoint on the reads that can
// see it, or reads the same, for the reason the table gives.
func TestDamageToAnyColumnOrRowIsErrCorrupt(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	ctx := context.Background()
	tables := strings.NewReplacer(
		"{cps}", pgx.Identifier{schema, "stategraph_checkpoints"}.Sanitize(),
		"{blobs}", pgx.Identifier{schema, "stategraph_blobs"}.Sanitize(),
		"{writes}", pgx.Identifier{schema, "stategraph_writes"}.Sanitize(),
		"{heads}", pgx.Identifier{schema, "stategraph_heads"}.Sanitize(),
	)
	for _, c := range postgresIntegrityCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			thread := newThread()
			ids := integrityHistory(t, s, thread)
			byName := map[string]string{"a": ids[0], "b": ids[1], "h": ids[2]}
			read := thread
			if c.other {
				read = thread + "-u"
			}
			cfg := checkpoint.Config{ThreadID: read, Namespace: c.ns}
			before := listAllPG(t, s, cfg)
			q := tables.Replace(c.damage)
			for k, id := range byName {
				q = strings.ReplaceAll(q, "{"+k+"}", "'"+id+"'")
			}
			// The damage bypasses the foreign keys, as a hand-edited or
			// partly restored database may.
			tx, err := pool.Begin(ctx)
			require.NoError(t, err)
			defer func() { _ = tx.Rollback(ctx) }()
			_, err = tx.Exec(ctx, "SET LOCAL session_replication_role = replica")
			require.NoError(t, err)
			tag, err := tx.Exec(ctx, q, thread)
			require.NoError(t, err)
			require.Positive(t, tag.RowsAffected(), "the damage hit a row")
			require.NoError(t, tx.Commit(ctx))
			var named []string
			for _, k := range strings.Split(c.names, "|") {
				named = append(named, byName[k])
			}
			requireCorrupt := func(err error, what string) {
				t.Helper()
				require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
				require.ErrorContains(t, err, read, "%s: names the thread", what)
				n := 0
				for _, id := range named {
					n += strings.Count(err.Error(), id)
				}
				require.Positive(t, n, "%s: %v names the checkpoint %v", what, err, named)
			}
			switch c.seen {
			case seenByRead:
				_, err := s.Get(ctx, cfg)
				requireCorrupt(err, "get latest")
				fallthrough
			case seenByList:
				var listErr error
				for _, err := range s.List(ctx, cfg, checkpoint.ListOptions{}) {
					if err != nil {
						listErr = err
						break
					}
				}
				requireCorrupt(listErr, "list")
				fallthrough
			case seenByVerify:
				requireCorrupt(s.Verify(ctx, read), "verify")
			case harmless:
				require.NotEmpty(t, c.reason)
				require.Equal(t, before, listAllPG(t, s, cfg), "reads the same")
				require.NoError(t, s.Verify(ctx, read))
			default:
				t.Fatalf("unknown kind %q", c.seen)
			}
		})
	}
}

func listAllPG(t *testing.T, s checkpoint.Saver, cfg checkpoint.Config) []*checkpoint.Tuple {
	t.Helper()
	var out []*checkpoint.Tuple
	for tup, err := range s.List(context.Background(), cfg, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		out = append(out, tup)
	}
	return out
}

// TestVerifyPassesWhatTheSaverWrote: Verify of a history with writes,
// namespaces, metadata of every kind, a copy and a pruned thread is nil,
// and of an unknown thread too.
func TestVerifyPassesWhatTheSaverWrote(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	ids := integrityHistory(t, s, thread)
	req := putReq(thread, ids[2], map[string]string{"items": "i3", "name": "n1"}, nil)
	req.Metadata = checkpoint.Metadata{Source: checkpoint.SourceUpdate, Step: 3, RunID: "r", Nodes: []string{"n"},
		Parents: map[string]string{"": "p"}, Extra: map[string]any{"big": uint64(1) << 60, "f": 0.1, "e": 1e21, "s": "<&>", "o": map[string]any{"z": 1, "a": []any{true, nil}}}}
	last := mustPut(t, s, req)
	sub := putReq(thread, "", nil, nil)
	sub.Config.Namespace = "sub:1"
	mustPut(t, s, sub)
	require.NoError(t, s.Verify(ctx, thread))
	require.NoError(t, s.Verify(ctx, "unknown-"+thread))
	require.NoError(t, s.CopyThread(ctx, thread, thread+"-copy"))
	require.NoError(t, s.Verify(ctx, thread+"-copy"))
	require.NoError(t, s.Prune(ctx, thread, 2))
	require.NoError(t, s.Verify(ctx, thread))
	got := listAllPG(t, s, configOf(thread))
	require.Len(t, got, 2)
	require.Equal(t, last, got[0].Checkpoint.ID)
}

// TestRowsWrittenBeforeMigration2StillRead clears the columns migration 2
// added, as rows written before it have them: they read as before, Verify
// passes, and a history continued on them reads whole.
func TestRowsWrittenBeforeMigration2StillRead(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	ids := integrityHistory(t, s, thread)
	before := listAllPG(t, s, configOf(thread))
	for _, q := range []string{
		`UPDATE ` + pgx.Identifier{schema, "stategraph_checkpoints"}.Sanitize() + ` SET crc = NULL, prev = NULL, nwrites = NULL WHERE thread_id = $1`,
		`UPDATE ` + pgx.Identifier{schema, "stategraph_blobs"}.Sanitize() + ` SET crc = NULL WHERE thread_id = $1`,
		`UPDATE ` + pgx.Identifier{schema, "stategraph_writes"}.Sanitize() + ` SET crc = NULL WHERE thread_id = $1`,
	} {
		_, err := pool.Exec(ctx, q, thread)
		require.NoError(t, err)
	}
	require.Equal(t, before, listAllPG(t, s, configOf(thread)))
	require.NoError(t, s.Verify(ctx, thread))

	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: ids[2]}, "task2",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "name", Value: []byte(`"y"`)}}))
	next := mustPut(t, s, putReq(thread, ids[2], map[string]string{"items": "i3", "name": "n2"}, map[string]checkpoint.Blob{"name": fullBlob("n2", `"z"`)}))
	got := listAllPG(t, s, configOf(thread))
	require.Len(t, got, 4)
	require.Equal(t, next, got[0].Checkpoint.ID)
	require.Len(t, got[1].PendingWrites, 3)
	require.NoError(t, s.Verify(ctx, thread))
}

// TestListAcrossAPruneIsNoDamage prunes, or deletes, the thread between
// two pages of a List: the walk sees the history change under it, which
// is not damage.
func TestListAcrossAPruneIsNoDamage(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	end := postgres.PagesEnd(2)
	for _, keep := range []int{end - 5, 0} {
		thread := newThread()
		parent := ""
		for range end + 20 {
			parent = mustPut(t, s, putReq(thread, parent, nil, nil))
		}
		n := 0
		for _, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{}) {
			require.NoError(t, err, "keep %d", keep)
			if n++; n == end { // the last of the second page
				pruneOrDelete(t, s, thread, keep)
			}
		}
		require.Equal(t, end, n)
		require.NoError(t, s.Verify(ctx, thread))
	}
}
