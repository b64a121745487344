package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMermaidDrawsThePathToTheEnd(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "mermaid", threadDone)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, `graph TD;
	__start__([<p>__start__</p>]):::first
	s1_write["write · step 1"]
	s2_write["write · step 2"]
	s3_review["review · step 3"]
	__end__([<p>__end__</p>]):::last
	__start__ --> s1_write;
	s1_write --> s2_write;
	s2_write --> s3_review;
	s3_review --> __end__;
	classDef first fill-opacity:0
	classDef last fill:#bfb6fc
	classDef pending stroke-dasharray:5 5
`, r.stdout)
}

func TestMermaidDrawsPendingNodesDashed(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "mermaid", threadPaused)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\ts3_review[\"review · step 3 (pending)\"]:::pending\n")
	assert.Contains(t, r.stdout, "\ts2_write -.-> s3_review;\n")
	assert.NotContains(t, r.stdout, "__end__")

	// Pinned to a past checkpoint, the path stops there.
	hist := decode[[]historyRow](t, db, "history", threadDone)
	v := decode[mermaidView](t, db, "mermaid", threadDone, hist[2].Checkpoint)
	assert.Equal(t, hist[2].Checkpoint, v.Checkpoint)
	assert.Equal(t, []string{hist[4].Checkpoint, hist[3].Checkpoint, hist[2].Checkpoint}, v.Path)
	assert.Equal(t, []string{"write"}, v.Next)
	assert.Contains(t, v.Mermaid, "\ts1_write -.-> s2_write;\n")
}
