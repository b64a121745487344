package inspect

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestStatusPrefersErrorsThenInterruptsThenPending(t *testing.T) {
	t.Parallel()
	next := map[string]checkpoint.Value{checkpoint.NextChannel: {Snapshot: []byte(`{"nodes":["a","b"]}`)}}
	errW := checkpoint.PendingWrite{TaskID: "t1", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"a","error":"boom\nat line 2"}`)}
	cancelW := checkpoint.PendingWrite{TaskID: "t0", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"b","error":"graph: node \"b\" failed at step 5: context canceled"}`)}
	intW := checkpoint.PendingWrite{TaskID: "t2", Index: -3, Channel: checkpoint.InterruptChannel, Value: []byte(`[{"id":"i","node":"b","when":"during","step":1}]`)}
	cases := []struct {
		name   string
		values map[string]checkpoint.Value
		writes []checkpoint.PendingWrite
		want   string
	}{
		{"done", map[string]checkpoint.Value{checkpoint.NextChannel: {Snapshot: []byte(`{}`)}}, nil, "done"},
		{"no schedule", nil, nil, "done"},
		{"pending", next, nil, "pending a, b"},
		{"interrupted", next, []checkpoint.PendingWrite{intW}, "interrupted (b)"},
		{"error", next, []checkpoint.PendingWrite{errW, intW}, "error (a: boom at line 2)"},
		{"cancelled", next, []checkpoint.PendingWrite{cancelW}, "pending a, b (cancelled)"},
		{"cancelled while interrupted", next, []checkpoint.PendingWrite{cancelW, intW}, "interrupted (b)"},
		{"error and a cancelled sibling", next, []checkpoint.PendingWrite{cancelW, errW}, "error (a: boom at line 2)"},
	}
	for _, c := range cases {
		st, err := StatusOf(&checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: c.values}, PendingWrites: c.writes})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, st.String(), c.name)
	}
	_, err := StatusOf(&checkpoint.Tuple{PendingWrites: []checkpoint.PendingWrite{{Index: -3, Channel: checkpoint.InterruptChannel, Value: []byte(`{`)}}})
	assert.ErrorIs(t, err, checkpoint.ErrCorrupt)
}

func TestTaskErrorsEndingInContextCanceledAreCancellations(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		`graph: node "execute" failed at step 5: context canceled`:             true,
		"call the service: context canceled\n":                                 true,
		"context canceled":                                                     true,
		"context deadline exceeded":                                            false,
		"context canceled by the user, then the service failed":                false,
		`graph: node "review" failed at step 2: reviewer unavailable`:          false,
		"Post \"https://api\": context canceled; retry budget exhausted: boom": false,
	}
	for text, want := range cases {
		assert.Equal(t, want, TaskError{Error: text}.Cancelled(), text)
	}
	tasks, err := Pending(&checkpoint.Tuple{PendingWrites: []checkpoint.PendingWrite{
		{TaskID: "t1", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"a","error":"boom"}`)},
		{TaskID: "t2", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"b","error":"x: context canceled"}`)},
	}})
	require.NoError(t, err)
	assert.Equal(t, []TaskError{{TaskID: "t1", Node: "a", Error: "boom"}}, tasks.Errors)
	assert.Equal(t, []TaskError{{TaskID: "t2", Node: "b", Error: "x: context canceled"}}, tasks.Cancelled)
	assert.Empty(t, tasks.Interrupts)
}

// A task that failed or paused and then finished (a resume that crashed
// later in the step) has successful writes beside its old error or
// interrupt write: as the runtime does, the inspector counts it finished.
func TestAFinishedTasksOldFailureIsLeftOut(t *testing.T) {
	t.Parallel()
	tasks, err := Pending(&checkpoint.Tuple{PendingWrites: []checkpoint.PendingWrite{
		{TaskID: "t1", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"a","error":"boom"}`)},
		{TaskID: "t1", Index: 0, Channel: "trail", Value: []byte(`["a"]`)},
		{TaskID: "t2", Index: -3, Channel: checkpoint.InterruptChannel, Value: []byte(`[{"id":"i2","node":"b","when":"during"}]`)},
		{TaskID: "t2", Index: 0, Channel: "trail", Value: []byte(`["b"]`)},
		{TaskID: "t3", Index: -3, Channel: checkpoint.InterruptChannel, Value: []byte(`[{"id":"i3","node":"c","when":"during"}]`)},
	}})
	require.NoError(t, err)
	assert.Empty(t, tasks.Errors)
	require.Len(t, tasks.Interrupts, 1)
	assert.Equal(t, "i3", tasks.Interrupts[0].ID)
}
