package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// putValueHistory stores n checkpoints on thread, each with a new value
// of "n" and the schedule, and returns their ids, oldest first.
func putValueHistory(t *testing.T, s checkpoint.Saver, thread string, n int) []string {
	t.Helper()
	parent := ""
	versions := map[string]string{}
	ids := make([]string, 0, n)
	for range n {
		v := checkpoint.NewID()
		req := putReq(thread, parent, versions, map[string]checkpoint.Blob{
			"n": fullBlob(v, `1`), checkpoint.NextChannel: fullBlob(v+".next", `{}`),
		})
		parent, versions = mustPut(t, s, req), req.Checkpoint.Versions
		ids = append(ids, parent)
	}
	return ids
}

// TestListSkippingAcrossAPruneEndsWhereTheHistoryNowEnds prunes, or
// deletes, the thread between the two statements of a page (from
// SkipValue, which List calls between them): the page ends before the
// first checkpoint gone, with no error, and the walk ends there.
func TestListSkippingAcrossAPruneEndsWhereTheHistoryNowEnds(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	first := postgres.PagesEnd(1) // the prune comes in the second page
	for _, keep := range []int{first + 3, 0} {
		thread := newThread()
		ids := putValueHistory(t, s, thread, postgres.PagesEnd(2)+5)
		asked := 0
		var got []string
		for tup, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{SkipValue: func(tup *checkpoint.Tuple, _ string) bool {
			if asked++; asked == first+1 {
				pruneOrDelete(t, s, thread, keep)
			}
			return false
		}}) {
			require.NoError(t, err, "keep %d", keep)
			require.Contains(t, tup.Checkpoint.Values, "n")
			got = append(got, tup.Checkpoint.ID)
		}
		want := max(keep, first)
		require.Len(t, got, want, "keep %d", keep)
		for i, id := range got {
			require.Equal(t, ids[len(ids)-1-i], id)
		}
		require.NoError(t, s.Verify(ctx, thread))
	}
}

// TestReadRoundTrips: once their statements are prepared, Get and
// GetHead are one round trip; List yields its first item after one round
// trip, or two when SkipValue leaves values to read; and a page whose
// fields SkipValue skips is one round trip.
func TestReadRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, rt := tracedSaver(t)
	thread := newThread()
	n := postgres.PagesEnd(3) + 10 // four pages
	putValueHistory(t, s, thread, n)
	skipOlder := func() func(*checkpoint.Tuple, string) bool {
		first := ""
		return func(tup *checkpoint.Tuple, _ string) bool {
			if first == "" {
				first = tup.Checkpoint.ID
			}
			return tup.Checkpoint.ID != first
		}
	}
	cases := []struct {
		name        string
		skip        func() func(*checkpoint.Tuple, string) bool
		first, list int64
	}{
		{"all values", nil, 1, 4},
		{"skipping all but the newest", skipOlder, 2, 5},
	}
	for pass := range 2 { // the first pass prepares the statements
		for _, c := range cases {
			var opts checkpoint.ListOptions
			if c.skip != nil {
				opts.SkipValue = c.skip()
			}
			rt.take()
			count := 0
			for _, err := range s.List(ctx, configOf(thread), opts) {
				require.NoError(t, err)
				if count++; count == 1 {
					if got, stmts := rt.take(); pass > 0 {
						require.Equal(t, c.first, got, "%s: round trips to the first item: %v", c.name, stmts)
					}
				}
			}
			require.Equal(t, n, count)
			if got, stmts := rt.take(); pass > 0 {
				require.Equal(t, c.list-c.first, got, "%s: round trips after the first item: %v", c.name, stmts)
			}
		}
		for name, get := range map[string]func(context.Context, checkpoint.Config) (*checkpoint.Tuple, error){"Get": s.Get, "GetHead": s.GetHead} {
			rt.take()
			_, err := get(ctx, configOf(thread))
			require.NoError(t, err)
			if got, stmts := rt.take(); pass > 0 {
				require.EqualValues(t, 1, got, "%s: %v", name, stmts)
			}
		}
	}
}

// TestReservedValuesAreReadWhateverTheirShape: GetHead and a List that
// skips every field read every reserved channel's value, not only a
// schedule stored whole: another reserved channel, and a schedule stored
// as a delta, come from the read's second statement.
func TestReservedValuesAreReadWhateverTheirShape(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	thread := newThread()
	first := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{
		checkpoint.NextChannel: fullBlob("s1", `[1]`), "__other__": fullBlob("o1", `"o"`), "n": fullBlob("n1", `1`),
	}))
	req := putReq(thread, first, map[string]string{checkpoint.NextChannel: "s1", "__other__": "o1", "n": "n1"},
		map[string]checkpoint.Blob{checkpoint.NextChannel: deltaBlob("s2", "s1", `[2]`), "n": fullBlob("n2", `2`)})
	second := mustPut(t, s, req)

	want := map[string]map[string]checkpoint.Value{
		second: {
			checkpoint.NextChannel: {Version: "s2", Snapshot: []byte(`[1]`), Deltas: [][]byte{[]byte(`[2]`)}},
			"__other__":            {Version: "o1", Snapshot: []byte(`"o"`)},
		},
		first: {
			checkpoint.NextChannel: {Version: "s1", Snapshot: []byte(`[1]`)},
			"__other__":            {Version: "o1", Snapshot: []byte(`"o"`)},
		},
	}
	head, err := s.GetHead(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, want[second], head.Checkpoint.Values)
	n := 0
	for tup, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{SkipValue: func(*checkpoint.Tuple, string) bool { return true }}) {
		require.NoError(t, err)
		require.Equal(t, want[tup.Checkpoint.ID], tup.Checkpoint.Values)
		n++
	}
	require.Equal(t, 2, n)
}
