package checkpointtest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// ownedTests store versions named as the runtime names them: after the
// checkpoint that made them (its id, or its id, "." and a suffix). A
// backend may store such a value with its checkpoint (SQLite keeps small
// ones in the checkpoint's row); these tests pin that every operation
// still finds it there, from the checkpoint that made it and from later
// ones, across delta chains, copies and prunes.
var ownedTests = []test{
	{name: "ReadFromLaterCheckpoints", fn: testOwnedVersionsReadFromLaterCheckpoints},
	{name: "SurvivePruneAndCopy", fn: testOwnedVersionsSurvivePruneAndCopy},
}

// ownedRun is a history of checkpoints whose versions belong to them:
// "name" is written by the first checkpoint only, "items" grows by a
// delta a step (every fourth a snapshot), "big" (over any inline limit)
// changes every third step, and "n" every step.
type ownedRun struct {
	ids  []string
	want []map[string]val
}

func putOwnedRun(t *testing.T, s checkpoint.Saver, thread string, n int) ownedRun {
	t.Helper()
	var run ownedRun
	versions := map[string]string{}
	cur := map[string]val{}
	parent := ""
	id := checkpoint.NewID()
	for i := range n {
		blobs := map[string]checkpoint.Blob{}
		set := func(ch string, b checkpoint.Blob, v val) {
			blobs[ch] = b
			versions[ch] = b.Version
			cur[ch] = v
		}
		if i == 0 {
			set("name", full(id, `"owned"`), val{id, `"owned"`, nil})
		}
		item := `["` + itoa(i) + `"]`
		if i%4 == 0 {
			v := id + "." + itoa(i+1) + "s"
			all := `[` + strings.Repeat(`"x",`, i) + `"` + itoa(i) + `"]`
			set("items", full(v, all), val{v, all, nil})
		} else {
			v := id + "." + itoa(i+1) + "d"
			prev := cur["items"]
			set("items", delta(v, versions["items"], item), val{v, prev.snapshot, append(append([]string(nil), prev.deltas...), item)})
		}
		if i%3 == 0 {
			big := `"` + strings.Repeat(itoa(i), 2000/len(itoa(i))) + `"`
			set("big", full(id+".big", big), val{id + ".big", big, nil})
		}
		set("n", full(id, itoa(i)), val{id, itoa(i), nil})
		want := map[string]val{}
		for ch, v := range cur {
			want[ch] = v
		}
		vs := map[string]string{}
		for ch, v := range versions {
			vs[ch] = v
		}
		mustPut(t, s, thread, step{id: id, parent: parent, versions: vs, blobs: blobs})
		run.ids = append(run.ids, id)
		run.want = append(run.want, want)
		parent = id
		id = checkpoint.NewIDAfter(id)
	}
	return run
}

// check reads every checkpoint of run on thread, one by one and by List.
func (run ownedRun) check(t *testing.T, s checkpoint.Saver, thread string, from int) {
	t.Helper()
	for i := from; i < len(run.ids); i++ {
		tup := mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: run.ids[i]})
		requireValues(t, run.want[i], tup.Checkpoint.Values, "checkpoint %d", i)
	}
	tups := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, tups, len(run.ids)-from)
	for j, tup := range tups {
		i := len(run.ids) - 1 - j
		require.Equal(t, run.ids[i], tup.Checkpoint.ID)
		requireValues(t, run.want[i], tup.Checkpoint.Values, "listed checkpoint %d", i)
	}
}

func testOwnedVersionsReadFromLaterCheckpoints(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	run := putOwnedRun(t, s, thread, 14)
	run.check(t, s, thread, 0)
	latest := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	requireValues(t, run.want[len(run.want)-1], latest.Checkpoint.Values, "latest")
}

func testOwnedVersionsSurvivePruneAndCopy(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	run := putOwnedRun(t, s, thread, 14)
	if c, ok := s.(checkpoint.Copier); ok {
		cp := newThreadID()
		require.NoError(t, c.CopyThread(ctx, thread, cp))
		run.check(t, s, cp, 0)
	}
	p, ok := s.(checkpoint.Pruner)
	if !ok {
		return
	}
	// The kept checkpoints read "name" from the first checkpoint, and
	// "items" through deltas of pruned ones.
	require.NoError(t, p.Prune(ctx, thread, 3))
	run.check(t, s, thread, len(run.ids)-3)
	require.NoError(t, p.Prune(ctx, thread, 1))
	run.check(t, s, thread, len(run.ids)-1)
}
