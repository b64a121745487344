package inspect

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestStatusPrefersErrorsThenInterruptsThenPending(t *testing.T) {
	t.Parallel()
	next := map[string]checkpoint.Value{NextChannel: {Snapshot: []byte(`{"nodes":["a","b"]}`)}}
	errW := checkpoint.PendingWrite{TaskID: "t1", Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"a","error":"boom\nat line 2"}`)}
	intW := checkpoint.PendingWrite{TaskID: "t2", Index: -3, Channel: checkpoint.InterruptChannel, Value: []byte(`[{"id":"i","node":"b","when":"during","step":1}]`)}
	cases := []struct {
		name   string
		values map[string]checkpoint.Value
		writes []checkpoint.PendingWrite
		want   string
	}{
		{"done", map[string]checkpoint.Value{NextChannel: {Snapshot: []byte(`{}`)}}, nil, "done"},
		{"no schedule", nil, nil, "done"},
		{"pending", next, nil, "pending a, b"},
		{"interrupted", next, []checkpoint.PendingWrite{intW}, "interrupted (b)"},
		{"error", next, []checkpoint.PendingWrite{errW, intW}, "error (a: boom at line 2)"},
	}
	for _, c := range cases {
		st, err := StatusOf(&checkpoint.Tuple{Checkpoint: checkpoint.Checkpoint{Values: c.values}, PendingWrites: c.writes})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, st.String(), c.name)
	}
	_, err := StatusOf(&checkpoint.Tuple{PendingWrites: []checkpoint.PendingWrite{{Channel: checkpoint.InterruptChannel, Value: []byte(`{`)}}})
	assert.ErrorIs(t, err, checkpoint.ErrCorrupt)
}
