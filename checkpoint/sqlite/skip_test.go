package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestListDoesNotReadSkippedValues deletes the blob rows a channel's value
// needs and checks that a List whose SkipValue skips that channel does not
// look for them (it yields every checkpoint with the values it reads),
// while a List that reads them reports checkpoint.ErrCorrupt.
func TestListDoesNotReadSkippedValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(c1, c2, c3 string) string
		skip   func(c1, c2, c3 string) func(*checkpoint.Tuple, string) bool
		// reads is the channels each checkpoint keeps, newest first.
		reads [][]string
	}{
		{
			name:   "a large value's blob row",
			damage: func(c1, _, _ string) string { return `DELETE FROM blobs WHERE version = '` + c1 + `'` },
			skip: func(string, string, string) func(*checkpoint.Tuple, string) bool {
				return func(_ *checkpoint.Tuple, ch string) bool { return ch == "big" }
			},
			reads: [][]string{{"items", "name"}, {"items", "name"}, {"items", "name"}},
		},
		{
			name:   "a delta in the chain of the newer checkpoints",
			damage: func(_, c2, _ string) string { return `DELETE FROM blobs WHERE version = '` + c2 + `.2d'` },
			skip: func(c1, _, _ string) func(*checkpoint.Tuple, string) bool {
				return func(tup *checkpoint.Tuple, _ string) bool { return tup.Checkpoint.ID != c1 }
			},
			reads: [][]string{{}, {}, {"big", "items", "name"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "skip.db")
			s, err := sqlite.Open(path)
			require.NoError(t, err)
			defer s.Close()
			c1, c2, c3 := ownedHistory(t, s)
			_, err = rawDB(t, path).Exec(c.damage(c1, c2, c3))
			require.NoError(t, err)
			ctx := context.Background()
			cfg := checkpoint.Config{ThreadID: "t"}

			var listErr error
			for _, err := range s.List(ctx, cfg, checkpoint.ListOptions{}) {
				if err != nil {
					listErr = err
					break
				}
			}
			require.ErrorIs(t, listErr, checkpoint.ErrCorrupt, "a List that reads every value finds the damage")

			var got [][]string
			for tup, err := range s.List(ctx, cfg, checkpoint.ListOptions{SkipValue: c.skip(c1, c2, c3)}) {
				require.NoError(t, err)
				chans := []string{}
				for ch := range tup.Checkpoint.Values {
					chans = append(chans, ch)
				}
				require.ElementsMatch(t, c.reads[len(got)], chans, "checkpoint %d", len(got))
				got = append(got, chans)
			}
			require.Len(t, got, 3)
		})
	}
}
