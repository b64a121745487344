package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// spanHistory stores thread "t": an input checkpoint, then loop
// checkpoints 0..6, and returns the saver, its file and the ids, oldest
// first.
func spanHistory(t *testing.T) (*sqlite.Saver, string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	var ids []string
	parent := ""
	for i := -1; i < 7; i++ {
		src := checkpoint.SourceLoop
		if i < 0 {
			src = checkpoint.SourceInput
		}
		parent = put(t, s, "t", parent, map[string]string{}, nil, checkpoint.Metadata{Source: src, Step: i})
		ids = append(ids, parent)
	}
	return s, path, ids
}

// listIDs lists thread "t" with opts and returns the ids, or the error.
func listIDs(s checkpoint.Saver, opts checkpoint.ListOptions) ([]string, error) {
	var ids []string
	for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: "t"}, opts) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, tup.Checkpoint.ID)
	}
	return ids, nil
}

// TestFilteredAndLimitedListsVerifyTheLinksOfWhatTheyReturn: with a middle
// checkpoint row deleted, a List narrowed by a metadata filter or a limit
// is ErrCorrupt naming the checkpoint whose predecessor is missing, as a
// walk of the whole history is, instead of a shorter answer; what lies
// wholly above the damage still reads.
func TestFilteredAndLimitedListsVerifyTheLinksOfWhatTheyReturn(t *testing.T) {
	t.Parallel()
	loop := map[string]any{"source": "loop"}
	for _, c := range []struct {
		name    string
		opts    func(ids []string) checkpoint.ListOptions
		corrupt bool
	}{
		{"no filter", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{} }, true},
		{"source=loop", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop} }, true},
		{"step=3, the checkpoint just above the damage", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 3}}
		}, true},
		{"step=5, above the damage", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 5}}
		}, true}, // the filter read every row: every row is verified
		{"step=0, below the damage: the rows it passed are verified", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 0}}
		}, true},
		{"before the damage, no filter", func(ids []string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Before: ids[4]}
		}, true},
		{"limit 2 before the damage's successor", func(ids []string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Before: ids[6], Limit: 2}
		}, true},
		{"limit 1 before the damage's successor's successor", func(ids []string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Before: ids[6], Limit: 1}
		}, false},
		{"source=loop, limit 2 (above)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop, Limit: 2} }, false},
		{"source=loop, limit 5 (through)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop, Limit: 5} }, true},
		{"limit 4, ending just above the damage", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Limit: 4} }, true},
		{"limit 3 (above)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Limit: 3} }, false},
		{"before the damage, source=loop", func(ids []string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: loop, Before: ids[4]}
		}, true},
		{"a filter no row matches", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"source": "fork"}}
		}, true},
		{"step=2, the deleted checkpoint's own", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 2}}
		}, true},
		{"step=5, limit 1", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 5}, Limit: 1}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, ids := spanHistory(t)
			// Step 2 (ids[3]) goes; step 3 (ids[4]) names it as its prev.
			_, err := rawDB(t, path).Exec(`DELETE FROM checkpoints WHERE id = ?`, ids[3])
			require.NoError(t, err)
			got, err := listIDs(s, c.opts(ids))
			if !c.corrupt {
				require.NoError(t, err)
				require.NotContains(t, got, ids[3])
				return
			}
			require.ErrorIs(t, err, checkpoint.ErrCorrupt, "answered %d checkpoints", len(got))
			require.ErrorContains(t, err, ids[4], "names the checkpoint whose predecessor is missing")
			require.ErrorContains(t, err, ids[3], "and the predecessor")
		})
	}
}

// TestFilteredListOfAnIntactHistoryIsWhole: the verification finds
// nothing in an undamaged history, across pages and cursors.
func TestFilteredListOfAnIntactHistoryIsWhole(t *testing.T) {
	t.Parallel()
	s, _, ids := spanHistory(t)
	got, err := listIDs(s, checkpoint.ListOptions{Filter: map[string]any{"source": "loop"}})
	require.NoError(t, err)
	require.Len(t, got, 7)
	got, err = listIDs(s, checkpoint.ListOptions{Filter: map[string]any{"source": "input"}})
	require.NoError(t, err)
	require.Equal(t, []string{ids[0]}, got)
	got, err = listIDs(s, checkpoint.ListOptions{Filter: map[string]any{"source": "fork"}})
	require.NoError(t, err)
	require.Empty(t, got)
	for limit := 1; limit <= 9; limit++ {
		got, err = listIDs(s, checkpoint.ListOptions{Limit: limit, Before: ids[7]})
		require.NoError(t, err)
		require.Len(t, got, min(limit, 7))
	}
}

// TestDamagedFileIsErrCorruptNamingTheDatabase: a metadata column that is
// no longer JSON, met by a filter that SQL evaluates, and tables that lost
// a column their schema version has, are ErrCorrupt, not SQLite's "SQL
// logic error"; Open names the file.
func TestDamagedFileIsErrCorruptNamingTheDatabase(t *testing.T) {
	t.Parallel()
	t.Run("malformed metadata under a filter", func(t *testing.T) {
		t.Parallel()
		s, path, ids := spanHistory(t)
		_, err := rawDB(t, path).Exec(`UPDATE checkpoints SET metadata = CAST('{"source": "lo' AS BLOB) WHERE id = ?`, ids[5])
		require.NoError(t, err)
		_, err = listIDs(s, checkpoint.ListOptions{Filter: map[string]any{"source": "loop"}})
		require.ErrorIs(t, err, checkpoint.ErrCorrupt)
		require.ErrorContains(t, err, `thread "t"`)
	})
	t.Run("a column gone at open", func(t *testing.T) {
		t.Parallel()
		s, path, _ := spanHistory(t)
		require.NoError(t, s.Close())
		_, err := rawDB(t, path).Exec(`ALTER TABLE checkpoints DROP COLUMN inline`)
		require.NoError(t, err)
		_, err = sqlite.Open(path)
		require.ErrorIs(t, err, checkpoint.ErrCorrupt)
		require.ErrorContains(t, err, path, "names the database")
	})
}
