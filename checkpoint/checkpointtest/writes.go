package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var writesTests = []test{
	{"RoundTripOrderedByTaskThenIndex", testWritesRoundTripOrdered},
	{"StampsTaskID", testWritesStampsTaskID},
	{"NonNegativeIndexKeepsFirst", testWritesNonNegativeIndexKeepsFirst},
	{"NegativeIndexReplaces", testWritesNegativeIndexReplaces},
	{"AttachToOneCheckpoint", testWritesAttachToOneCheckpoint},
	{"InNamespace", testWritesInNamespace},
	{"UnknownCheckpointIsNotFound", testWritesUnknownCheckpointIsNotFound},
}

func testWritesRoundTripOrdered(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	ctx := context.Background()
	binary := string([]byte{0, 1, 2, 0xfe, 0xff})

	require.NoError(t, s.PutWrites(ctx, cfg, "task-b", []checkpoint.PendingWrite{
		pw("task-b", 2, "c", `"b2"`),
		pw("task-b", 0, "a", `"b0"`),
		pw("task-b", 1, "b", binary),
	}))
	require.NoError(t, s.PutWrites(ctx, cfg, "task-a", []checkpoint.PendingWrite{
		pw("task-a", 0, "a", `{"nested":[1,2]}`),
		pw("task-a", 1, "a", ``),
	}))
	require.NoError(t, s.PutWrites(ctx, cfg, "task-c", nil), "no writes is not an error")

	want := []write{
		{"task-a", 0, "a", `{"nested":[1,2]}`},
		{"task-a", 1, "a", ``},
		{"task-b", 0, "a", `"b0"`},
		{"task-b", 1, "b", binary},
		{"task-b", 2, "c", `"b2"`},
	}
	requireWrites(t, want, mustGet(t, s, cfg).PendingWrites, "get by id")
	requireWrites(t, want, mustGet(t, s, checkpoint.Config{ThreadID: thread}).PendingWrites, "get latest")
	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, list, 1)
	requireWrites(t, want, list[0].PendingWrites, "list")
}

func testWritesStampsTaskID(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	// The writes carry no task id: the taskID argument is what counts.
	require.NoError(t, s.PutWrites(context.Background(), cfg, "task-1", []checkpoint.PendingWrite{
		{Index: 0, Channel: "x", Value: []byte("1")},
	}))
	requireWrites(t, []write{{"task-1", 0, "x", "1"}}, mustGet(t, s, cfg).PendingWrites)
}

func testWritesNonNegativeIndexKeepsFirst(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	ctx := context.Background()

	first := []checkpoint.PendingWrite{pw("t", 0, "a", `"first"`), pw("t", 1, "b", `"first"`)}
	require.NoError(t, s.PutWrites(ctx, cfg, "t", first))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", first), "storing the same writes again")
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{
		pw("t", 0, "a", `"second"`),
		pw("t", 2, "c", `"new"`),
	}))
	requireWrites(t, []write{
		{"t", 0, "a", `"first"`},
		{"t", 1, "b", `"first"`},
		{"t", 2, "c", `"new"`},
	}, mustGet(t, s, cfg).PendingWrites)
}

func testWritesNegativeIndexReplaces(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	ctx := context.Background()

	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", 0, "a", `"kept"`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -1, checkpoint.ErrorChannel, `"boom 1"`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -1, checkpoint.ErrorChannel, `"boom 2"`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -3, checkpoint.InterruptChannel, `[{"value":"ask 1"}]`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -3, checkpoint.InterruptChannel, `[{"value":"ask 2"}]`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -4, checkpoint.ResumeChannel, `["yes"]`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{pw("t", -4, checkpoint.ResumeChannel, `["yes","no"]`)}))
	require.NoError(t, s.PutWrites(ctx, cfg, "u", []checkpoint.PendingWrite{pw("u", -1, checkpoint.ErrorChannel, `"other task"`)}))

	requireWrites(t, []write{
		{"t", -4, checkpoint.ResumeChannel, `["yes","no"]`},
		{"t", -3, checkpoint.InterruptChannel, `[{"value":"ask 2"}]`},
		{"t", -1, checkpoint.ErrorChannel, `"boom 2"`},
		{"t", 0, "a", `"kept"`},
		{"u", -1, checkpoint.ErrorChannel, `"other task"`},
	}, mustGet(t, s, cfg).PendingWrites)
}

func testWritesAttachToOneCheckpoint(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ctx := context.Background()
	first := putChain(t, s, thread, "", 1, nil)[0]
	firstCfg := checkpoint.Config{ThreadID: thread, CheckpointID: first}
	require.NoError(t, s.PutWrites(ctx, firstCfg, "t", []checkpoint.PendingWrite{pw("t", 0, "n", "1")}))

	second := mustPut(t, s, thread, step{parent: first, versions: map[string]string{"n": "n0"}})
	require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread}).PendingWrites, "the next checkpoint starts with no writes")
	require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: second}).PendingWrites)
	requireWrites(t, []write{{"t", 0, "n", "1"}}, mustGet(t, s, firstCfg).PendingWrites, "the first keeps its writes")

	list := collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})
	require.Len(t, list, 2)
	require.Empty(t, list[0].PendingWrites)
	requireWrites(t, []write{{"t", 0, "n", "1"}}, list[1].PendingWrites)
}

func testWritesInNamespace(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ctx := context.Background()
	root := putChain(t, s, thread, "", 1, nil)[0]
	child := putChain(t, s, thread, "child:1", 1, nil)[0]
	childCfg := checkpoint.Config{ThreadID: thread, Namespace: "child:1", CheckpointID: child}
	require.NoError(t, s.PutWrites(ctx, childCfg, "t", []checkpoint.PendingWrite{pw("t", 0, "x", `"child"`)}))

	requireWrites(t, []write{{"t", 0, "x", `"child"`}}, mustGet(t, s, childCfg).PendingWrites)
	require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: root}).PendingWrites)
}

func testWritesUnknownCheckpointIsNotFound(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	other := newThreadID()
	cases := []struct {
		name string
		cfg  checkpoint.Config
	}{
		{"unknown id", checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}},
		{"unknown thread", checkpoint.Config{ThreadID: other, CheckpointID: id}},
		{"wrong namespace", checkpoint.Config{ThreadID: thread, Namespace: "child:1", CheckpointID: id}},
		// Writes belong to the checkpoint their task ran from, never to
		// whatever is the latest.
		{"no checkpoint id", checkpoint.Config{ThreadID: thread}},
	}
	for _, c := range cases {
		err := s.PutWrites(context.Background(), c.cfg, "t", []checkpoint.PendingWrite{pw("t", 0, "x", "1")})
		requireNotFound(t, err, c.cfg.ThreadID, c.name)
	}
	require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread}).PendingWrites)
}
