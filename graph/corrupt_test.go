package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// putRaw stores a checkpoint with the given blobs as the head of a new
// thread, as a damaged or foreign writer would.
func putRaw(t testing.TB, saver checkpoint.Saver, thread string, blobs map[string][]byte) string {
	t.Helper()
	id := checkpoint.NewID()
	versions := map[string]string{}
	newBlobs := map[string]checkpoint.Blob{}
	for ch, data := range blobs {
		versions[ch] = id
		newBlobs[ch] = checkpoint.Blob{Version: id, Data: data}
	}
	_, err := saver.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{ID: id, Versions: versions, New: newBlobs},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 3},
	})
	require.NoError(t, err)
	return id
}

func corruptGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[counter] {
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	return mustCompile(t, g, graph.WithCheckpointer(saver))
}

func TestCorruptCheckpointNamesThreadAndCheckpoint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		blobs map[string][]byte
	}{
		{"field of the wrong type", map[string][]byte{"n": []byte(`"seven"`), "__next__": []byte(`{"nodes":["b"]}`)}},
		{"truncated value", map[string][]byte{"trail": []byte(`["a","b`), "__next__": []byte(`{}`)}},
		{"schedule not JSON", map[string][]byte{"n": []byte(`1`), "__next__": []byte(`{"nodes":`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			saver := memory.New()
			app := corruptGraph(t, saver)
			id := putRaw(t, saver, "broken", c.blobs)
			_, err := app.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("broken"))
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			require.ErrorContains(t, err, `thread "broken"`)
			require.ErrorContains(t, err, id)
			_, err = app.State(t.Context(), graph.WithThread("broken"))
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			// Nothing was written over the damaged head: no silent fresh start.
			tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "broken"})
			require.NoError(t, err)
			require.Equal(t, id, tup.Config.CheckpointID)
		})
	}
}

// FuzzCheckpointDecode feeds arbitrary bytes to the runtime's decoding of
// a checkpoint (a field value, a delta, the schedule): it must fail with
// an error, never panic.
func FuzzCheckpointDecode(f *testing.F) {
	f.Add([]byte(`["a"]`), []byte(`["b"]`), []byte(`{"nodes":["b"]}`))
	f.Add([]byte(`null`), []byte(`[]`), []byte(`{"sends":[{"node":"a","arg":{"n":"MQ=="}}]}`))
	f.Add([]byte(`{`), []byte(`1`), []byte(`{"joins":{"a,b>c":["a"]}}`))
	f.Fuzz(func(t *testing.T, trail, delta, sched []byte) {
		saver := memory.New()
		app := corruptGraph(t, saver)
		base := checkpoint.NewID()
		id := checkpoint.NewID() // after base: the head decides the order
		_, err := saver.Put(context.Background(), checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: "f"},
			Checkpoint: checkpoint.Checkpoint{ID: base, Versions: map[string]string{"trail": base},
				New: map[string]checkpoint.Blob{"trail": {Version: base, Data: trail}}},
		})
		require.NoError(t, err)
		_, err = saver.Put(context.Background(), checkpoint.PutRequest{
			Config: checkpoint.Config{ThreadID: "f", CheckpointID: base},
			Checkpoint: checkpoint.Checkpoint{ID: id, Versions: map[string]string{"trail": id, "__next__": id},
				New: map[string]checkpoint.Blob{"trail": {Version: id, Data: delta, Delta: true, Base: base}, "__next__": {Version: id, Data: sched}}},
			ExpectHead: base,
		})
		require.NoError(t, err)
		_, err = app.State(context.Background(), graph.WithThread("f"))
		if err != nil && !errors.Is(err, checkpoint.ErrCorrupt) {
			t.Fatalf("decode error without ErrCorrupt: %v", err)
		}
		_, _ = app.Invoke(context.Background(), state.Update[counter]{}, graph.WithThread("f"))
	})
}
