package encrypt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// TestGetHeadChecksTheSeal pins that the head read (checkpoint.HeadGetter),
// which carries no field values, is authenticated as Get is: the seal
// covers the metadata, versions and parent, and the schedule decrypts.
func TestGetHeadChecksTheSeal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	put := func(s checkpoint.Saver, thread string, head *string) {
		first := putOne(t, s, thread, map[string]string{"x": "1"})
		*head = checkpoint.NewID()
		_, err := s.Put(ctx, checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: thread, CheckpointID: first},
			Checkpoint: checkpoint.Checkpoint{ID: *head,
				Versions: map[string]string{"x": "v2", checkpoint.NextChannel: *head},
				New: map[string]checkpoint.Blob{
					"x":                    {Version: "v2", Data: []byte("2")},
					checkpoint.NextChannel: {Version: *head, Data: []byte(`{"nodes":["a"]}`)},
				}},
			Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 2, Extra: map[string]any{"user": "ada"}},
			ExpectHead: first,
		})
		require.NoError(t, err)
	}
	headGetter := func(s checkpoint.Saver) checkpoint.HeadGetter {
		hg, ok := s.(checkpoint.HeadGetter)
		require.True(t, ok, "the wrapper of a HeadGetter is one")
		return hg
	}

	t.Run("intact", func(t *testing.T) {
		t.Parallel()
		s, _, _ := encryptedSQLite(t, newRing(t))
		thread := newThread()
		var head string
		put(s, thread, &head)
		tup, err := headGetter(s).GetHead(ctx, checkpoint.Config{ThreadID: thread})
		require.NoError(t, err)
		assert.Equal(t, head, tup.Checkpoint.ID)
		assert.Equal(t, map[string]string{"x": "v2", checkpoint.NextChannel: head}, tup.Checkpoint.Versions, "the seal's channel is not shown")
		require.Len(t, tup.Checkpoint.Values, 1)
		assert.Equal(t, `{"nodes":["a"]}`, string(tup.Checkpoint.Values[checkpoint.NextChannel].Snapshot), "the schedule decrypts")
	})

	for _, c := range sealTampers {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var head string
			s := encrypt.Wrap(tampered(&head, c.tamper), newRing(t))
			thread := newThread()
			put(s, thread, &head)
			_, err := headGetter(s).GetHead(ctx, checkpoint.Config{ThreadID: thread})
			ee := requireEncError(t, err, encrypt.ErrSealMismatch, thread, "")
			assert.Equal(t, head, ee.Checkpoint)
		})
	}
}

// TestGetHeadOfASaverWithoutOneReadsWithGet pins the wrapper's GetHead
// over a saver that has none: Get's tuple, authenticated, with the
// reserved channels' values alone.
func TestGetHeadOfASaverWithoutOneReadsWithGet(t *testing.T) {
	t.Parallel()
	inner := struct{ checkpoint.Saver }{memory.New()} // hides memory's GetHead
	s := encrypt.Wrap(inner, newRing(t))
	thread := newThread()
	putOne(t, s, thread, map[string]string{"x": "1", checkpoint.NextChannel: "{}"})
	tup, err := s.(checkpoint.HeadGetter).GetHead(context.Background(), checkpoint.Config{ThreadID: thread})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"x": "v1", checkpoint.NextChannel: "v1"}, tup.Checkpoint.Versions)
	require.Len(t, tup.Checkpoint.Values, 1)
	assert.Equal(t, "{}", string(tup.Checkpoint.Values[checkpoint.NextChannel].Snapshot))
}
