package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

// TestStatisticsLetTheSearchPickItsIndex pins why Put analyzes: with
// statistics, a filtered search over a prefix that holds every item walks
// the updated_at index and stops at its page, while one over a namespace
// of a few items reads that namespace by its key and sorts it.
func TestStatisticsLetTheSearchPickItsIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	require.NoError(t, err)
	defer s.Close()
	d := s.Driver().(*Driver)
	plan := func(prefix string) string {
		conds, err := store.Filter{"kind": "food"}.Conditions()
		require.NoError(t, err)
		w, exact := where(store.Query{Prefix: prefix, Now: time.Now(), Conditions: conds}, "")
		require.True(t, exact)
		rows, err := d.db.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT `+columns+` FROM store_items WHERE `+w.b.String()+`
ORDER BY updated_at DESC, ns, key LIMIT 10`, w.args...)
		require.NoError(t, err)
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, unused int
			var step string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &step))
			steps = append(steps, step)
		}
		require.NoError(t, rows.Err())
		return strings.Join(steps, "; ")
	}
	for i := range firstAnalyze {
		require.NoError(t, s.Put(ctx, []string{"all", fmt.Sprint(i % 100)}, fmt.Sprintf("k%d", i), map[string]any{"kind": "food", "i": i}))
	}
	require.Contains(t, plan("all"), "SCAN store_items USING INDEX store_items_updated")
	require.NotContains(t, plan("all"), "TEMP B-TREE")
	require.Contains(t, plan("all.42"), "USING PRIMARY KEY")
}
