package graph_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// earlierForm stores what the runtime asks it to in the form earlier
// versions wrote: an input checkpoint's __start__ value as encoding/json's
// []PendingWrite (values base64), a schedule of nodes only as
// {"nodes":[…]}.
type earlierForm struct {
	checkpoint.Saver
	t *testing.T
}

func (s earlierForm) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	blobs := make(map[string]checkpoint.Blob, len(req.Checkpoint.New))
	for name, b := range req.Checkpoint.New {
		switch name {
		case checkpoint.StartChannel:
			ws, err := checkpoint.StartWrites(b.Data, "")
			require.NoError(s.t, err)
			b.Data, err = json.Marshal(ws)
			require.NoError(s.t, err)
		case checkpoint.NextChannel:
			sched, err := checkpoint.ParseSchedule(b.Data)
			require.NoError(s.t, err)
			if len(sched.Sends) == 0 && len(sched.Joins) == 0 {
				b.Data, err = json.Marshal(sched) // {"nodes":[…]} or {}
				require.NoError(s.t, err)
			}
		}
		blobs[name] = b
	}
	req.Checkpoint.New = blobs
	return s.Saver.Put(ctx, req)
}

// A thread stored by an earlier version, its input in the object form
// and its schedules as objects, reads and resumes as it ran: an input
// checkpoint whose run stopped right after it goes on with its input, on
// every saver, in a fresh process.
func TestAnInputCheckpointOfAnEarlierVersionResumesWithItsInput(t *testing.T) {
	t.Parallel()
	want := []string{"in", "a", "b", "c", "d", "e", "f"}
	input := state.Writes(trailField.Set([]string{"in"}))
	ctx := context.Background()
	for _, be := range crashBackends() {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			first, reopen := be.open(t)
			// The process stores its input checkpoint and dies.
			faulty := &faultSaver{inner: earlierForm{Saver: first, t: t}, failAt: 2}
			_, err := diamondTwice(t, faulty, graph.DurabilitySync).Invoke(ctx, input, graph.WithThread("t"))
			require.ErrorIs(t, err, errInjected)

			saver := reopen()
			tup, err := saver.Get(ctx, checkpoint.Config{ThreadID: "t"})
			require.NoError(t, err)
			require.Equal(t, checkpoint.SourceInput, tup.Metadata.Source)
			assert.Equal(t, `{"nodes":["__start__"]}`, string(tup.Checkpoint.Values[checkpoint.NextChannel].Snapshot))
			assert.Contains(t, string(tup.Checkpoint.Values[checkpoint.StartChannel].Snapshot), `"value":"WyJpbiJd"`, "the input base64, as earlier versions stored it")

			out, err := diamondTwice(t, saver, graph.DurabilitySync).Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, want, out.Trail)
		})
	}
}

// A whole run stored in the earlier form reads back in History as the
// same run stored now does: the same states and the same next nodes,
// checkpoint by checkpoint.
func TestHistoryOfAnEarlierVersionsThreadReadsAsNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	input := state.Writes(trailField.Set([]string{"in"}))
	history := func(saver checkpoint.Saver) (values [][]string, next [][]string) {
		_, err := diamondTwice(t, saver, graph.DurabilitySync).Invoke(ctx, input, graph.WithThread("t"))
		require.NoError(t, err)
		fresh := diamondTwice(t, saver, graph.DurabilitySync)
		for snap, err := range fresh.History(ctx, graph.WithThread("t")) {
			require.NoError(t, err)
			values = append(values, snap.Values.Trail)
			next = append(next, snap.Next)
		}
		return values, next
	}
	oldValues, oldNext := history(earlierForm{Saver: memory.New(), t: t})
	values, next := history(memory.New())
	require.NotEmpty(t, values)
	assert.Equal(t, values, oldValues)
	assert.Equal(t, next, oldNext)
}
