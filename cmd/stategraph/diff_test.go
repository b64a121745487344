package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

func TestDiffNamesAddedRemovedChangedAndAppendedFields(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	hist := decode[[]historyRow](t, db, "history", threadDone)
	head, step0 := hist[0].Checkpoint, hist[2].Checkpoint

	d := decode[diffView](t, db, "diff", threadDone, step0, head)
	assert.Equal(t, diffEnd{Checkpoint: step0, Step: 0}, d.A)
	assert.Equal(t, diffEnd{Checkpoint: head, Step: 2}, d.B)
	require.Len(t, d.Changes, 3)
	assert.Equal(t, inspect.Change{Field: "approved", Kind: inspect.Added, After: []byte("true")}, d.Changes[0])
	assert.Equal(t, "drafts", d.Changes[1].Field)
	assert.Equal(t, inspect.Appended, d.Changes[1].Kind)
	assert.Equal(t, 1, d.Changes[1].Appended)
	assert.Equal(t, inspect.Change{Field: "revisions", Kind: inspect.Changed, Before: []byte("1"), After: []byte("2")}, d.Changes[2])

	r := onDB(t, db, "diff", threadDone, step0, head)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 5)
	assert.Equal(t, "thread done-1: A "+step0+" (step 0) → B "+head+" (step 2)", out[0])
	assert.Regexp(t, `^FIELD\s+CHANGE\s+DETAIL$`, out[1])
	assert.Regexp(t, `^approved\s+added\s+= true$`, out[2])
	assert.Regexp(t, `^drafts\s+appended\s+\+1 element$`, out[3])
	assert.Regexp(t, `^revisions\s+changed\s+1 → 2$`, out[4])

	// Backwards: approved is removed, and a shorter array is a change.
	back := decode[diffView](t, db, "diff", threadDone, head, step0)
	require.Len(t, back.Changes, 3)
	assert.Equal(t, inspect.Removed, back.Changes[0].Kind)
	assert.Equal(t, inspect.Changed, back.Changes[1].Kind)

	same := onDB(t, db, "diff", threadDone, head, head)
	require.Equal(t, 0, same.code, same.stderr)
	assert.Contains(t, same.stdout, "no field changed\n")
}
