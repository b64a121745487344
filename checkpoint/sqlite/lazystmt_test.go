package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// The statements a cold read of the latest state does not use (a pinned
// checkpoint's row, the chains of more than four channels, a page of
// checkpoints' writes) are prepared when first used: inside that first
// read's own transaction, then for good. Each read gives the same result
// the first time, on a Saver just opened, and after.
func TestReadsThatPrepareTheirStatementsLateReadTheSame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lazy.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	channels := []string{"a", "b", "c", "d", "e", "f"} // more than four: one chain query for all
	var ids []string
	parent := ""
	for step := range 3 {
		id := checkpoint.NewID()
		if parent != "" {
			id = checkpoint.NewIDAfter(parent)
		}
		versions, blobs := map[string]string{}, map[string]checkpoint.Blob{}
		for _, ch := range channels {
			v := fmt.Sprintf("%s.%d", id, step)
			versions[ch] = v
			if step == 0 {
				blobs[ch] = full(v, `["`+ch+`0"]`)
			} else {
				blobs[ch] = delta(v, fmt.Sprintf("%s.%d", parent, step-1), fmt.Sprintf(`["%s%d"]`, ch, step))
			}
		}
		putOwned(t, s, id, parent, versions, blobs)
		require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: id}, "task",
			[]checkpoint.PendingWrite{{TaskID: "task", Channel: "a", Value: []byte(`["w"]`)}}))
		ids = append(ids, id)
		parent = id
	}
	require.NoError(t, s.Close())

	read := func(s *sqlite.Saver) string {
		var b strings.Builder
		for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
			require.NoError(t, err)
			fmt.Fprintf(&b, "%s %d writes;", tup.Config.CheckpointID, len(tup.PendingWrites))
			for _, ch := range channels {
				v := tup.Checkpoint.Values[ch]
				fmt.Fprintf(&b, " %s=%s+%d", ch, v.Snapshot, len(v.Deltas))
			}
			b.WriteString("\n")
		}
		tup, err := s.Get(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: ids[1]})
		require.NoError(t, err)
		fmt.Fprintf(&b, "pinned %s %d writes %v", tup.Config.CheckpointID, len(tup.PendingWrites), tup.Checkpoint.Values["f"].Deltas)
		return b.String()
	}
	s, err = sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	first := read(s)
	require.Contains(t, first, ids[2]+" 1 writes; a=[\"a0\"]+2")
	require.Contains(t, first, "pinned "+ids[1]+" 1 writes [[91 34 102 49 34 93]]")
	require.Equal(t, first, read(s), "read again, with the statements prepared")
	require.Equal(t, first, read(s))
}
