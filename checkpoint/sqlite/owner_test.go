package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// ownerHistory stores three checkpoints of thread "t" whose small values
// live in the rows of the checkpoints that wrote them, as the runtime
// stores them, and returns the saver, the file and the ids, oldest
// first. The head reads "name" and the snapshot under its "items" deltas
// from the oldest row, and "topic" and its schedule ("__next__") from the
// middle one.
func ownerHistory(t *testing.T) (*sqlite.Saver, string, [3]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "owner.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	c1 := checkpoint.NewID()
	c2 := checkpoint.NewIDAfter(c1)
	c3 := checkpoint.NewIDAfter(c2)
	next := checkpoint.NextChannel
	putOwned(t, s, c1, "", map[string]string{"name": c1, "items": c1 + ".1s", next: c1},
		map[string]checkpoint.Blob{"name": full(c1, `"x"`), "items": full(c1+".1s", `["a"]`), next: full(c1, `["n1"]`)})
	putOwned(t, s, c2, c1, map[string]string{"name": c1, "items": c2 + ".2d", "topic": c2, next: c2},
		map[string]checkpoint.Blob{"items": delta(c2+".2d", c1+".1s", `["b"]`), "topic": full(c2, `"t"`), next: full(c2, `["n2"]`)})
	putOwned(t, s, c3, c2, map[string]string{"name": c1, "items": c3 + ".3d", "topic": c2, next: c2},
		map[string]checkpoint.Blob{"items": delta(c3+".3d", c2+".2d", `["c"]`)})
	return s, path, [3]string{c1, c2, c3}
}

// TestAValueLostWithItsRowIsReportedAsTheRowsDamage damages the row of a
// checkpoint that holds values a newer checkpoint reads: every read that
// needs them reports the damage of that row (missing, or not matching its
// checksum) naming it, never a value missing, which is only what the
// damage did.
func TestAValueLostWithItsRowIsReportedAsTheRowsDamage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage string // SQL; {1}, {2} are the ids of the oldest and middle rows, quoted
		row    int    // the damaged checkpoint: 0 the oldest, 1 the middle
		want   string
	}{
		{"the middle deleted", `DELETE FROM checkpoints WHERE id = {2}`, 1, "is missing"},
		{"the oldest deleted", `DELETE FROM checkpoints WHERE id = {1}`, 0, "is missing"},
		{"the middle moved to another thread", `UPDATE checkpoints SET thread_id = 'u' WHERE id = {2}`, 1, "is missing"},
		{"the middle moved to another namespace", `UPDATE checkpoints SET ns = 'x' WHERE id = {2}`, 1, "is missing"},
		{"the middle's id changed", `UPDATE checkpoints SET id = id || '0' WHERE id = {2}`, 1, "checksum"},
		{"the middle's metadata changed", `UPDATE checkpoints SET metadata = json_set(metadata, '$.step', 7) WHERE id = {2}`, 1, "checksum"},
		{"the oldest's metadata changed", `UPDATE checkpoints SET metadata = json_set(metadata, '$.step', 7) WHERE id = {1}`, 0, "checksum"},
		{"the middle's prev changed", `UPDATE checkpoints SET prev = '' WHERE id = {2}`, 1, "checksum"},
		{"the middle's crc changed", `UPDATE checkpoints SET crc = crc + 1 WHERE id = {2}`, 1, "checksum"},
		{"the middle's inline values changed", `UPDATE checkpoints SET inline = CAST(replace(CAST(inline AS TEXT), '"t"', '"u"') AS BLOB) WHERE id = {2}`, 1, "checksum"},
		{"the middle's inline values removed", `UPDATE checkpoints SET inline = NULL WHERE id = {2}`, 1, "checksum"},
		{"the middle made to look written before checksums", `UPDATE checkpoints SET crc = NULL, prev = NULL, nwrites = NULL WHERE id = {2}`, 1, "checksum"},
		{"the middle made to look written before checksums and before values inline", `UPDATE checkpoints SET crc = NULL, prev = NULL, nwrites = NULL, inline = NULL WHERE id = {2}`, 1, "without checksums"},
		{"the middle's versions not json", `UPDATE checkpoints SET versions = 'garbage' WHERE id = {2}`, 1, "checksum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, ids := ownerHistory(t)
			q := strings.NewReplacer("{1}", "'"+ids[0]+"'", "{2}", "'"+ids[1]+"'").Replace(c.damage)
			res, err := rawDB(t, path).Exec(q)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Positive(t, n, "the damage hit a row")

			ctx := context.Background()
			head := checkpoint.Config{ThreadID: "t"}
			byID := checkpoint.Config{ThreadID: "t", CheckpointID: ids[2]}
			listErr := func(cfg checkpoint.Config, opts checkpoint.ListOptions) error {
				for _, err := range s.List(ctx, cfg, opts) {
					if err != nil {
						return err
					}
				}
				return nil
			}
			skipAll := func(*checkpoint.Tuple, string) bool { return true }
			errs := map[string]error{
				"list":                listErr(head, checkpoint.ListOptions{}),
				"list skipping":       listErr(head, checkpoint.ListOptions{SkipValue: skipAll}),
				"list of the head":    listErr(head, checkpoint.ListOptions{Limit: 1}),
				"list of the head id": listErr(byID, checkpoint.ListOptions{}),
				"verify":              s.Verify(ctx, "t"),
			}
			_, errs["get latest"] = s.Get(ctx, head)
			_, errs["get by id"] = s.Get(ctx, byID)
			if c.row == 1 { // the head's schedule is in the middle row
				_, errs["get head"] = s.GetHead(ctx, head)
			}
			for what, err := range errs {
				require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
				msg := err.Error()
				require.Contains(t, msg, `thread "t"`, "%s: names the thread", what)
				require.Contains(t, msg, ids[c.row], "%s: names the damaged checkpoint", what)
				require.Contains(t, msg, c.want, "%s: says what is wrong", what)
				require.NotContains(t, msg, "blob missing", "%s: the value is missing because of the row", what)
				require.NotContains(t, msg, "delta chain missing", "%s: the value is missing because of the row", what)
			}
		})
	}
}

// TestAValueOfAPrunedCheckpointIsStillABlobMissing: when the row that held
// a value is gone because Prune removed it (the oldest kept checkpoint
// names none before it), the value's own absence is the damage.
func TestAValueOfAPrunedCheckpointIsStillABlobMissing(t *testing.T) {
	t.Parallel()
	s, path, ids := ownerHistory(t)
	ctx := context.Background()
	require.NoError(t, s.Prune(ctx, "t", 1))
	res, err := rawDB(t, path).Exec(`DELETE FROM blobs WHERE version = ?`, ids[1])
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.Positive(t, n, "Prune moved the value the head reads from the middle row into a blob row")

	_, err = s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, ids[2])
	require.ErrorContains(t, err, `version "`+ids[1]+`": blob missing`)
}

// TestPruneDoesNotHideWhyAKeptValueIsMissing: a Prune that would delete
// the damaged row a kept checkpoint's values were lost with fails with
// that damage and changes nothing; one next to a row that damage deleted
// leaves the gap as it is (the oldest checkpoint kept still names the
// missing one), in the namespace it prunes and in the others. Either way
// every read says after it what it said before.
func TestPruneDoesNotHideWhyAKeptValueIsMissing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, damage, want string
		row                int // the damaged checkpoint: 0 the oldest, 1 the middle
		fails              bool
		sub                bool // the prune deletes checkpoints of another namespace only
	}{
		{name: "the middle deleted", damage: `DELETE FROM checkpoints WHERE id = ?`, row: 1, want: "is missing"},
		{name: "the oldest deleted, another namespace pruned", damage: `DELETE FROM checkpoints WHERE id = ?`, want: "is missing", sub: true},
		{name: "the middle's metadata changed", damage: `UPDATE checkpoints SET metadata = json_set(metadata, '$.step', 7) WHERE id = ?`, row: 1, want: "checksum", fails: true},
		{name: "the middle's inline values removed", damage: `UPDATE checkpoints SET inline = NULL WHERE id = ?`, row: 1, want: "checksum", fails: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, ids := ownerHistory(t)
			ctx := context.Background()
			keep := 1
			if c.sub {
				keep = 2
				parent := ""
				for i := range 3 {
					id := checkpoint.NewID()
					_, err := s.Put(ctx, checkpoint.PutRequest{
						Config:     checkpoint.Config{ThreadID: "t", Namespace: "sub", CheckpointID: parent},
						Checkpoint: checkpoint.Checkpoint{ID: id, Versions: map[string]string{"n": id}, New: map[string]checkpoint.Blob{"n": full(id, `1`)}},
						Metadata:   checkpoint.Metadata{Step: i},
						ExpectHead: parent,
					})
					require.NoError(t, err)
					parent = id
				}
			}
			_, err := rawDB(t, path).Exec(c.damage, ids[c.row])
			require.NoError(t, err)
			_, before := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
			require.ErrorContains(t, before, c.want)
			require.ErrorContains(t, before, ids[c.row])
			verifyBefore := s.Verify(ctx, "t")
			require.ErrorIs(t, verifyBefore, checkpoint.ErrCorrupt)

			err = s.Prune(ctx, "t", keep)
			if c.fails {
				require.ErrorIs(t, err, checkpoint.ErrCorrupt)
				require.ErrorContains(t, err, ids[c.row])
				require.ErrorContains(t, err, c.want)
			} else {
				require.NoError(t, err)
			}
			_, after := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
			require.ErrorIs(t, after, checkpoint.ErrCorrupt)
			require.Equal(t, before.Error(), after.Error(), "the prune hid nothing")
			verifyAfter := s.Verify(ctx, "t")
			require.ErrorIs(t, verifyAfter, checkpoint.ErrCorrupt)
			require.ErrorContains(t, verifyAfter, c.want)
			require.ErrorContains(t, verifyAfter, ids[c.row])
		})
	}
}
