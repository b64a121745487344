package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// spanHistory stores thread: an input checkpoint, then loop checkpoints
// 0..6, and returns the ids, oldest first.
func spanHistory(t *testing.T, s *postgres.Saver, thread string) []string {
	t.Helper()
	var ids []string
	parent := ""
	for i := -1; i < 7; i++ {
		req := putReq(thread, parent, nil, nil)
		req.Metadata = checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i}
		if i < 0 {
			req.Metadata.Source = checkpoint.SourceInput
		}
		parent = mustPut(t, s, req)
		ids = append(ids, parent)
	}
	return ids
}

// TestFilteredAndLimitedListsVerifyTheLinksOfWhatTheyReturn: with a middle
// checkpoint row moved to another thread, a List narrowed by a metadata
// filter, a limit or a cursor is ErrCorrupt naming the checkpoint whose
// predecessor is missing, as a walk of the whole history is, instead of
// a shorter answer; what lies wholly above the damage still reads.
func TestFilteredAndLimitedListsVerifyTheLinksOfWhatTheyReturn(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	cps := pgx.Identifier{schema, "stategraph_checkpoints"}.Sanitize()
	loop := map[string]any{"source": "loop"}
	for _, c := range []struct {
		name    string
		opts    func(ids []string) checkpoint.ListOptions
		corrupt bool
	}{
		{"no filter", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{} }, true},
		{"source=loop", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop} }, true},
		{"step=2, the moved checkpoint's own", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 2}}
		}, true},
		{"step=5, limit 1 (above)", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"step": 5}, Limit: 1}
		}, false},
		{"source=loop, limit 2 (above)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop, Limit: 2} }, false},
		{"source=loop, limit 4 (ending just above)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Filter: loop, Limit: 4} }, true},
		{"limit 4, ending just above the damage", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Limit: 4} }, true},
		{"limit 3 (above)", func([]string) checkpoint.ListOptions { return checkpoint.ListOptions{Limit: 3} }, false},
		{"before the damage", func(ids []string) checkpoint.ListOptions { return checkpoint.ListOptions{Before: ids[4]} }, true},
		{"before the damage, source=loop", func(ids []string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: loop, Before: ids[4]}
		}, true},
		{"a filter no row matches", func([]string) checkpoint.ListOptions {
			return checkpoint.ListOptions{Filter: map[string]any{"source": "fork"}}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			thread := newThread()
			ids := spanHistory(t, s, thread)
			// Step 2 (ids[3]) moves to another thread; step 3 (ids[4])
			// names it as its prev.
			_, err := pool.Exec(context.Background(), `UPDATE `+cps+` SET thread_id = thread_id || '-u' WHERE thread_id = $1 AND id = $2`, thread, ids[3])
			require.NoError(t, err)
			var got []string
			for tup, lerr := range s.List(context.Background(), configOf(thread), c.opts(ids)) {
				if err = lerr; err != nil {
					break
				}
				got = append(got, tup.Checkpoint.ID)
			}
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
	t.Run("intact", func(t *testing.T) {
		t.Parallel()
		thread := newThread()
		ids := spanHistory(t, s, thread)
		for _, opts := range []checkpoint.ListOptions{{Filter: loop}, {Filter: map[string]any{"source": "fork"}}, {Limit: 2, Before: ids[7]}, {Limit: 9, Before: ids[7]}} {
			for _, err := range s.List(context.Background(), configOf(thread), opts) {
				require.NoError(t, err)
			}
		}
	})
}
