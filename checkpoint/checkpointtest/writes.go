package checkpointtest

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var writesTests = []test{
	{name: "RoundTripOrderedByTaskThenIndex", fn: testWritesRoundTripOrdered},
	{name: "StampsTaskID", fn: testWritesStampsTaskID},
	{name: "NonNegativeIndexKeepsFirst", fn: testWritesNonNegativeIndexKeepsFirst},
	{name: "NegativeIndexReplaces", fn: testWritesNegativeIndexReplaces},
	{name: "AttachToOneCheckpoint", fn: testWritesAttachToOneCheckpoint},
	{name: "InNamespace", fn: testWritesInNamespace},
	{name: "UnknownCheckpointIsNotFound", fn: testWritesUnknownCheckpointIsNotFound},
	{name: "MissingCheckpointIsNotFound", fn: testWritesMissingCheckpointIsNotFound},
	{name: "BatchDuplicatesAndNegativeIndices", fn: testWritesBatchDuplicates},
	{name: "TaskOrderIsBytewise", fn: testWritesTaskOrderIsBytewise},
	{name: "IdempotentAcrossReopen", fnh: testWritesIdempotentAcrossReopen},
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

// Pending writes

func testWritesMissingCheckpointIsNotFound(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	deleted := newThreadID()
	delIDs := putChain(t, s, deleted, "", 1, nil)
	require.NoError(t, s.DeleteThread(ctx, deleted))

	cases := []struct {
		name   string
		cfg    checkpoint.Config
		writes []checkpoint.PendingWrite
	}{
		{"unknown id", checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}, []checkpoint.PendingWrite{pending(0, "x", "1")}},
		{"unknown id, no writes", checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}, nil},
		{"unknown id, negative index", checkpoint.Config{ThreadID: thread, CheckpointID: checkpoint.NewID()}, []checkpoint.PendingWrite{pending(-1, checkpoint.ErrorChannel, `"e"`)}},
		{"deleted thread", checkpoint.Config{ThreadID: deleted, CheckpointID: delIDs[0]}, []checkpoint.PendingWrite{pending(0, "x", "1")}},
		{"deleted thread, no writes", checkpoint.Config{ThreadID: deleted, CheckpointID: delIDs[0]}, []checkpoint.PendingWrite{}},
		{"id of the thread in another namespace", checkpoint.Config{ThreadID: thread, Namespace: "child", CheckpointID: ids[0]}, []checkpoint.PendingWrite{pending(0, "x", "1")}},
	}
	if p, ok := s.(checkpoint.Pruner); ok {
		require.NoError(t, p.Prune(ctx, thread, 2))
		cases = append(cases, struct {
			name   string
			cfg    checkpoint.Config
			writes []checkpoint.PendingWrite
		}{"pruned checkpoint", checkpoint.Config{ThreadID: thread, CheckpointID: ids[0]}, []checkpoint.PendingWrite{pending(0, "x", "1")}})
	}
	for _, c := range cases {
		err := s.PutWrites(ctx, c.cfg, "t", c.writes)
		requireNotFound(t, err, c.cfg.ThreadID, c.name)
	}
	for _, id := range ids[1:] {
		require.Empty(t, mustGet(t, s, checkpoint.Config{ThreadID: thread, CheckpointID: id}).PendingWrites)
	}
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: thread, Namespace: "child"}, checkpoint.ListOptions{}))
	require.Empty(t, listIDs(t, s, checkpoint.Config{ThreadID: deleted}, checkpoint.ListOptions{}))
}

// testWritesBatchDuplicates: within one call, and across calls, a
// non-negative index keeps the first write and a negative one the last
// (channel included). Mirrors LangGraph conformance
// test_put_writes_idempotent and test_put_writes_special_channels.
func testWritesBatchDuplicates(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	batch := []checkpoint.PendingWrite{
		pending(0, "a", `"first"`),
		pending(0, "a", `"second"`),
		pending(-1, checkpoint.ErrorChannel, `"e1"`),
		pending(-1, checkpoint.ErrorChannel, `"e2"`),
		pending(-2, checkpoint.InterruptChannel, `[{"value":"ask"}]`),
		pending(1, "b", ``),
		pending(0, "c", `"third"`),
	}
	want := []flatWrite{
		{"t", -2, checkpoint.InterruptChannel, `[{"value":"ask"}]`},
		{"t", -1, checkpoint.ErrorChannel, `"e2"`},
		{"t", 0, "a", `"first"`},
		{"t", 1, "b", ``},
	}
	require.NoError(t, s.PutWrites(ctx, cfg, "t", batch))
	require.Equal(t, want, flatWrites(mustGet(t, s, cfg).PendingWrites), "one call with duplicates")
	require.NoError(t, s.PutWrites(ctx, cfg, "t", batch))
	require.Equal(t, want, flatWrites(mustGet(t, s, cfg).PendingWrites), "the same call again")

	require.NoError(t, s.PutWrites(ctx, cfg, "t", []checkpoint.PendingWrite{
		pending(-1, checkpoint.ResumeChannel, `["yes"]`), // replaces, channel too
		pending(0, "a", `"later"`),                       // kept as it was
		pending(2, "d", `"new"`),
	}))
	want = []flatWrite{
		{"t", -2, checkpoint.InterruptChannel, `[{"value":"ask"}]`},
		{"t", -1, checkpoint.ResumeChannel, `["yes"]`},
		{"t", 0, "a", `"first"`},
		{"t", 1, "b", ``},
		{"t", 2, "d", `"new"`},
	}
	require.Equal(t, want, flatWrites(mustGet(t, s, cfg).PendingWrites), "a later call")
	require.Equal(t, want, flatWrites(collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})[0].PendingWrites), "list")
}

// testWritesTaskOrderIsBytewise: "ordered by task id" is byte order in every
// backend (no collation).
func testWritesTaskOrderIsBytewise(t *testing.T, s checkpoint.Saver) {
	ctx := context.Background()
	thread := newThreadID()
	id := putChain(t, s, thread, "", 1, nil)[0]
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	tasks := []string{"task-é", "task-z", "Task-A", "task-a", "task-10", "task-9", "täsk", "task_", "task-", "ä"}
	for _, task := range tasks {
		require.NoError(t, s.PutWrites(ctx, cfg, task, []checkpoint.PendingWrite{pending(1, "x", task), pending(-1, checkpoint.ErrorChannel, task)}))
	}
	sorted := slices.Clone(tasks)
	sort.Strings(sorted)
	var want []flatWrite
	for _, task := range sorted {
		want = append(want, flatWrite{task, -1, checkpoint.ErrorChannel, task}, flatWrite{task, 1, "x", task})
	}
	require.Equal(t, want, flatWrites(mustGet(t, s, cfg).PendingWrites))
	require.Equal(t, want, flatWrites(collect(t, s, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{})[0].PendingWrites))
}

// testWritesIdempotentAcrossReopen mirrors LangGraph conformance
// test_put_writes_idempotent_across_restart: replaying a task's writes from
// a new saver on the same storage stores nothing twice, and the head's
// compare-and-set holds across the two savers.
func testWritesIdempotentAcrossReopen(t *testing.T, s checkpoint.Saver, h *Harness) {
	if h.Reopen == nil {
		t.Skip("the harness has no Reopen (a backend that keeps nothing outside the process)")
	}
	ctx := context.Background()
	s1 := s
	thread := newThreadID()
	ids := putChain(t, s1, thread, "", 2, nil)
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: ids[1]}
	writes := []checkpoint.PendingWrite{pending(0, "ch", `"val"`), pending(-1, checkpoint.ErrorChannel, `"e1"`)}
	require.NoError(t, s1.PutWrites(ctx, cfg, "task", writes))

	s2 := h.Reopen(t, s1)
	require.NoError(t, s2.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{pending(0, "ch", `"other"`), pending(-1, checkpoint.ErrorChannel, `"e2"`)}))
	want := []flatWrite{{"task", -1, checkpoint.ErrorChannel, `"e2"`}, {"task", 0, "ch", `"val"`}}
	require.Equal(t, want, flatWrites(mustGet(t, s2, cfg).PendingWrites))
	require.Equal(t, want, flatWrites(mustGet(t, s1, cfg).PendingWrites))

	// One writer per thread across savers.
	mustPut(t, s2, thread, step{parent: ids[1], blobs: map[string]checkpoint.Blob{"n": full("s2", "2")}})
	_, err := s1.Put(ctx, step{parent: ids[1], blobs: map[string]checkpoint.Blob{"n": full("s1", "1")}}.request(thread))
	require.ErrorIs(t, err, checkpoint.ErrConflict)
}
