package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var getTests = []test{
	{name: "LatestPerThreadAndNamespace", fn: testGetLatestPerThreadAndNamespace},
	{name: "ByID", fn: testGetByID},
	{name: "UnknownIsNotFound", fn: testGetUnknownIsNotFound},
}

func testGetLatestPerThreadAndNamespace(t *testing.T, s checkpoint.Saver) {
	a, b := newThreadID(), newThreadID()
	rootA := putChain(t, s, a, "", 3, nil)
	childA := putChain(t, s, a, "child:1", 2, nil)
	rootB := putChain(t, s, b, "", 1, nil)

	cases := []struct {
		cfg  checkpoint.Config
		want string
		n    int
	}{
		{checkpoint.Config{ThreadID: a}, rootA[2], 2},
		{checkpoint.Config{ThreadID: a, Namespace: "child:1"}, childA[1], 1},
		{checkpoint.Config{ThreadID: b}, rootB[0], 0},
	}
	for _, c := range cases {
		tup := mustGet(t, s, c.cfg)
		require.Equal(t, c.want, tup.Checkpoint.ID, "%+v", c.cfg)
		want := c.cfg
		want.CheckpointID = c.want
		require.Equal(t, want, tup.Config, "Get latest fills in the checkpoint id")
		requireValues(t, map[string]val{"n": {"n" + itoa(c.n), itoa(c.n), nil}}, tup.Checkpoint.Values, "%+v", c.cfg)
		require.Equal(t, c.n, tup.Metadata.Step)
	}
}

func testGetByID(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 4, func(i int) checkpoint.Metadata {
		return checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, RunID: "run-" + itoa(i)}
	})
	for i, id := range ids {
		cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
		tup := mustGet(t, s, cfg)
		require.Equal(t, cfg, tup.Config)
		require.Equal(t, id, tup.Checkpoint.ID)
		require.Equal(t, map[string]string{"n": "n" + itoa(i)}, tup.Checkpoint.Versions)
		requireValues(t, map[string]val{"n": {"n" + itoa(i), itoa(i), nil}}, tup.Checkpoint.Values)
		requireMetadata(t, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: i, RunID: "run-" + itoa(i)}, tup.Metadata)
	}
}

func testGetUnknownIsNotFound(t *testing.T, s checkpoint.Saver) {
	thread, other := newThreadID(), newThreadID()
	root := putChain(t, s, thread, "", 1, nil)[0]
	child := putChain(t, s, thread, "child:1", 1, nil)[0]
	elsewhere := putChain(t, s, other, "", 1, nil)[0]
	unknownThread := newThreadID()

	cases := []struct {
		name string
		cfg  checkpoint.Config
	}{
		{"unknown thread", checkpoint.Config{ThreadID: unknownThread}},
		{"unknown thread with id", checkpoint.Config{ThreadID: unknownThread, CheckpointID: root}},
		{"unknown namespace", checkpoint.Config{ThreadID: thread, Namespace: "child:2"}},
		{"unknown id", checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}},
		{"id of another namespace", checkpoint.Config{ThreadID: thread, CheckpointID: child}},
		{"id of the root in a child namespace", checkpoint.Config{ThreadID: thread, Namespace: "child:1", CheckpointID: root}},
		{"id of another thread", checkpoint.Config{ThreadID: thread, CheckpointID: elsewhere}},
	}
	for _, c := range cases {
		tup, err := s.Get(context.Background(), c.cfg)
		requireNotFound(t, err, c.cfg.ThreadID, c.name)
		require.Nil(t, tup, c.name)
	}
}
