package main

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

// subgraphNS returns the namespace the subgraph of threadNested
// checkpointed in, as threads lists it.
func subgraphNS(t *testing.T, db string) string {
	t.Helper()
	for _, r := range decode[[]threadRow](t, db, "threads") {
		if r.Thread == threadNested {
			require.Len(t, r.Namespaces, 1)
			return r.Namespaces[0].Namespace
		}
	}
	t.Fatalf("threads does not list %s", threadNested)
	return ""
}

func TestHistoryOfASubgraphNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	ns := subgraphNS(t, db)

	// Without -ns: the parent's own checkpoints, the subgraph one step.
	root := decode[[]historyRow](t, db, "history", threadNested)
	require.Len(t, root, 4)
	assert.Equal(t, []string{subgraphNode}, root[0].Nodes)
	assert.Equal(t, []string{"outline"}, root[1].Nodes)

	// With -ns: the subgraph's steps, its own input first.
	rows := decode[[]historyRow](t, db, "history", threadNested, "-ns", ns)
	require.Len(t, rows, 5)
	var steps, sources, nodes []any
	for i, r := range rows {
		steps, sources, nodes = append(steps, r.Step), append(sources, r.Source), append(nodes, r.Nodes)
		assert.NotEmpty(t, r.RunID)
		for _, p := range root {
			assert.NotEqual(t, p.Checkpoint, r.Checkpoint, "a subgraph checkpoint is not one of the parent's")
		}
		if i+1 < len(rows) {
			assert.Equal(t, rows[i+1].Checkpoint, r.Parent)
		}
	}
	assert.Equal(t, []any{3, 2, 1, 0, -1}, steps)
	assert.Equal(t, []any{"loop", "loop", "loop", "loop", "input"}, sources)
	assert.Equal(t, []any{[]string{"review"}, []string{"write"}, []string{"write"}, []string{}, []string{}}, nodes)
	assert.Empty(t, rows[4].Parent)

	r := onDB(t, db, "history", threadNested, "-ns", ns)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 6)
	assert.Regexp(t, `^STEP\s+SOURCE\s+NODES\s+TIME\s+CHECKPOINT$`, out[0])
	assert.Regexp(t, `^3\s+loop\s+review\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+`+rows[0].Checkpoint+`$`, out[1])
	assert.Regexp(t, `^-1\s+input\s+-\s+.*`+rows[4].Checkpoint+`$`, out[5])

	// -ns may come first, and the subgraph node's name is enough.
	assert.Equal(t, rows, decode[[]historyRow](t, db, "history", "-ns", subgraphNode, threadNested))
	assert.Equal(t, rows, decode[[]historyRow](t, db, "history", threadNested, "-ns="+subgraphNode+":"))
}

func TestStateOfASubgraphNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	ns := subgraphNS(t, db)

	v := decode[stateView](t, db, "state", threadNested, "-ns", subgraphNode)
	assert.Equal(t, threadNested, v.Thread)
	assert.Equal(t, ns, v.Namespace, "the namespace -ns named, in full")
	assert.Equal(t, 3, v.Step)
	assert.Equal(t, []string{"review"}, v.Nodes)
	assert.Equal(t, "done", v.Status)
	assert.Equal(t, []string{}, v.Next)
	values, err := json.Marshal(v.Values)
	require.NoError(t, err)
	// The subgraph started from its parent's state: the outline is there.
	assert.JSONEq(t, `{"topic":"Py","drafts":["Py, outline","Py, draft 1","Py, draft 2"],"revisions":2,"approved":true}`, string(values))

	r := onDB(t, db, "state", threadNested, "-ns", ns)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	assert.Regexp(t, `^thread\s+nested-1$`, out[0])
	assert.Regexp(t, `^namespace\s+`+regexp.QuoteMeta(ns)+`$`, out[1])
	assert.Regexp(t, `^checkpoint\s+`+v.Checkpoint+`$`, out[2])
	assert.Regexp(t, `(?m)^nodes\s+review$`, r.stdout)
	assert.Regexp(t, `(?m)^status\s+done$`, r.stdout)
	assert.Contains(t, r.stdout, "\"Py, draft 2\"")

	// A past checkpoint of the namespace, by the end of its id.
	hist := decode[[]historyRow](t, db, "history", threadNested, "-ns", ns)
	step0 := hist[2].Checkpoint
	past := decode[stateView](t, db, "state", threadNested, step0[len(step0)-12:], "-ns", ns)
	assert.Equal(t, step0, past.Checkpoint)
	assert.Equal(t, inspect.StatePending, past.Status)
	assert.Equal(t, []string{"write"}, past.Next)
	assert.JSONEq(t, `["Py, outline","Py, draft 1"]`, string(past.Values["drafts"]))

	// The root's state says nothing of namespaces.
	root := onDB(t, db, "-json", "state", threadNested)
	require.Equal(t, 0, root.code, root.stderr)
	assert.NotContains(t, root.stdout, `"namespace"`)
	root = onDB(t, db, "state", threadNested)
	require.Equal(t, 0, root.code, root.stderr)
	assert.NotContains(t, root.stdout, "namespace")
	assert.Regexp(t, `(?m)^nodes\s+drafting$`, root.stdout)
}

func TestDiffInASubgraphNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	ns := subgraphNS(t, db)
	hist := decode[[]historyRow](t, db, "history", threadNested, "-ns", ns)
	input, head := hist[4].Checkpoint, hist[0].Checkpoint

	d := decode[diffView](t, db, "diff", threadNested, input, head, "-ns", subgraphNode)
	assert.Equal(t, threadNested, d.Thread)
	assert.Equal(t, ns, d.Namespace)
	assert.Equal(t, diffEnd{Checkpoint: input, Step: -1}, d.A)
	assert.Equal(t, diffEnd{Checkpoint: head, Step: 3}, d.B)
	// The subgraph's input holds every field of its parent's state, zero
	// values included.
	require.Len(t, d.Changes, 3)
	assert.Equal(t, inspect.Change{Field: "approved", Kind: inspect.Changed, Before: []byte("false"), After: []byte("true")}, d.Changes[0])
	assert.Equal(t, "drafts", d.Changes[1].Field)
	assert.Equal(t, inspect.Appended, d.Changes[1].Kind)
	assert.Equal(t, 2, d.Changes[1].Appended)
	assert.Equal(t, inspect.Change{Field: "revisions", Kind: inspect.Changed, Before: []byte("0"), After: []byte("2")}, d.Changes[2])

	r := onDB(t, db, "diff", "-ns", ns, threadNested, input, head)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 7)
	assert.Equal(t, "thread nested-1 namespace "+ns+": A "+input+" (step -1) → B "+head+" (step 3)", out[0])
	assert.Regexp(t, `^FIELD\s+CHANGE\s+DETAIL$`, out[1])
	assert.Regexp(t, `^approved\s+changed\s+false → true$`, out[2])
	assert.Regexp(t, `^drafts\s+appended\s+\+2 elements$`, out[3])
	assert.Regexp(t, `^drafts\.1\s+added\s+= "Py, draft 1"$`, out[4])
	assert.Regexp(t, `^drafts\.2\s+added\s+= "Py, draft 2"$`, out[5])
	assert.Regexp(t, `^revisions\s+changed\s+0 → 2$`, out[6])

	// The root's diff has no namespace, in either form.
	root := decode[[]historyRow](t, db, "history", threadNested)
	r = onDB(t, db, "-json", "diff", threadNested, root[2].Checkpoint, root[0].Checkpoint)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, `"namespace"`)
	r = onDB(t, db, "diff", threadNested, root[2].Checkpoint, root[0].Checkpoint)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^thread nested-1: A `, r.stdout)
}

func TestMermaidOfASubgraphNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	ns := subgraphNS(t, db)

	// The subgraph is docGraph: its path is the one done-1 took.
	r := onDB(t, db, "mermaid", threadNested, "-ns", ns)
	require.Equal(t, 0, r.code, r.stderr)
	done := onDB(t, db, "mermaid", threadDone)
	require.Equal(t, 0, done.code, done.stderr)
	assert.Equal(t, done.stdout, r.stdout)
	assert.Contains(t, r.stdout, "\ts3_review --> __end__;\n")

	root := onDB(t, db, "mermaid", threadNested)
	require.Equal(t, 0, root.code, root.stderr)
	assert.Contains(t, root.stdout, "\ts1_outline --> s2_drafting;\n")
	assert.NotContains(t, root.stdout, "review")

	hist := decode[[]historyRow](t, db, "history", threadNested, "-ns", ns)
	v := decode[mermaidView](t, db, "mermaid", threadNested, "-ns", subgraphNode)
	assert.Equal(t, threadNested, v.Thread)
	assert.Equal(t, ns, v.Namespace)
	assert.Equal(t, hist[0].Checkpoint, v.Checkpoint)
	assert.Equal(t, []string{hist[4].Checkpoint, hist[3].Checkpoint, hist[2].Checkpoint, hist[1].Checkpoint, hist[0].Checkpoint}, v.Path)
	assert.Empty(t, v.Next)
	assert.Equal(t, r.stdout, v.Mermaid)

	// Pinned to a past checkpoint of the namespace, the path stops there.
	past := decode[mermaidView](t, db, "mermaid", threadNested, hist[2].Checkpoint, "-ns", ns)
	assert.Equal(t, []string{hist[4].Checkpoint, hist[3].Checkpoint, hist[2].Checkpoint}, past.Path)
	assert.Equal(t, []string{"write"}, past.Next)
	assert.Contains(t, past.Mermaid, "\ts1_write -.-> s2_write;\n")
}

func TestUnknownNamespaceNamesTheThreadAndItsNamespaces(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	ns := subgraphNS(t, db)
	for _, args := range [][]string{
		{"history", threadNested},
		{"state", threadNested},
		{"diff", threadNested, "a", "b"},
		{"mermaid", threadNested},
	} {
		for _, format := range [][]string{nil, {"-json"}} {
			r := onDB(t, db, append(append(format, args...), "-ns", "outline")...)
			assert.Equal(t, 1, r.code, "%v: exit status as for an unknown thread", args)
			assert.Empty(t, r.stdout)
			assert.Equal(t, `stategraph: unknown namespace "outline": thread "nested-1" has no such namespace; its one subgraph namespace is "`+ns+`"`+"\n", r.stderr)
		}
	}

	// A checkpoint of the parent is not one of the subgraph's.
	root := decode[[]historyRow](t, db, "history", threadNested)
	r := onDB(t, db, "state", threadNested, root[0].Checkpoint, "-ns", subgraphNode)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `unknown checkpoint "`+root[0].Checkpoint+`": thread "nested-1" namespace "`+ns+`" has no such checkpoint`)
	assert.Contains(t, r.stderr, `"stategraph history nested-1 -ns `+ns+`"`)
}
