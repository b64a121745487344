package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

const prompt = "Answer in one sentence."

// record runs two questions on thread "t" of a SQLite file in dir and
// returns the file, copied to another directory, as a database moved to
// another machine would be, and the final state.
func record(t *testing.T) (string, qa) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "rec.db")
	saver, err := sqlite.Open(db)
	require.NoError(t, err)
	model := &scripted{replies: []string{"Otters hold hands.", "Owls turn their heads."}}
	app, err := qaGraph(prompt, model, &lookup{}, same).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	var out qa
	for _, q := range []string{"Otters", "Owls"} {
		out, err = app.Invoke(t.Context(), state.Writes(question.Set(q)), graph.WithThread("t"))
		require.NoError(t, err)
	}
	require.NoError(t, saver.Close())
	moved := filepath.Join(t.TempDir(), "copy.db")
	data, err := os.ReadFile(db)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(moved, data, 0o600))
	return moved, out
}

func openCopy(t *testing.T, path string) checkpoint.Saver {
	t.Helper()
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	return saver
}

func TestTheRecordingHoldsEveryCall(t *testing.T) {
	t.Parallel()
	db, _ := record(t)
	rec, err := replay.Load(t.Context(), openCopy(t, db), "t")
	require.NoError(t, err)
	require.Len(t, rec.Calls, 4)
	var kinds []string
	for _, c := range rec.Calls {
		kinds = append(kinds, string(c.Kind)+" "+c.Name+" "+c.Node)
		require.False(t, c.Started.IsZero())
		require.NotEmpty(t, c.Response)
	}
	require.Equal(t, []string{"tool lookup research", "model  write", "tool lookup research", "model  write"}, kinds)
	require.Equal(t, replay.Tokens{Prompt: 12, Completion: 3}, rec.Calls[1].Tokens)
	require.JSONEq(t, `"Otters"`, string(rec.Calls[0].Request))
}

func TestAReplayOfACopiedDatabaseMatchesItsRecording(t *testing.T) {
	t.Parallel()
	db, want := record(t)
	g := qaGraph(prompt, offline{t}, offlineTool{t}, same)
	rep, err := replay.Run(t.Context(), g, openCopy(t, db), "t")
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want, rep.Output)
}

func TestAChangedPromptIsADivergenceAtItsStep(t *testing.T) {
	t.Parallel()
	db, _ := record(t)
	saver := openCopy(t, db)

	g := qaGraph("Answer in one word.", offline{t}, offlineTool{t}, same)
	rep, err := replay.Run(t.Context(), g, saver, "t")
	require.NoError(t, err)
	d := rep.First()
	require.NotNil(t, d)
	require.Equal(t, replay.ChangedCall, d.Kind)
	require.Equal(t, "write", d.Node)
	require.Equal(t, 2, d.Step, "the first run's write step")
	require.Contains(t, d.Diff, "-")
	require.Contains(t, d.Diff, "Answer in one sentence.")
	require.Contains(t, d.Diff, "Answer in one word.")

	// A live (here scripted) model answers the changed call: the replay
	// goes on, and its answer changes the step's state.
	live := &scripted{replies: []string{"Hands.", "Heads."}}
	rep, err = replay.Run(t.Context(), g, saver, "t", replay.WithLiveModel(live))
	require.NoError(t, err)
	require.Equal(t, replay.ChangedCall, rep.First().Kind)
	require.Equal(t, "Heads.", rep.Output.Answer)
	var kinds []replay.DivergenceKind
	for _, d := range rep.Divergences {
		kinds = append(kinds, d.Kind)
	}
	require.Equal(t, []replay.DivergenceKind{replay.ChangedCall, replay.ChangedState, replay.ChangedCall}, kinds)
	require.Contains(t, rep.Divergences[1].Diff, `-  "Answer": "Otters hold hands."`)
	require.Contains(t, rep.Divergences[1].Diff, `+  "Answer": "Hands."`)
}

func TestAChangedNodeIsADivergenceAtItsStep(t *testing.T) {
	t.Parallel()
	db, _ := record(t)
	g := qaGraph(prompt, offline{t}, offlineTool{t}, strings.ToUpper)
	rep, err := replay.Run(t.Context(), g, openCopy(t, db), "t")
	require.NoError(t, err)
	d := rep.First()
	require.NotNil(t, d)
	require.Equal(t, replay.ChangedState, d.Kind, d.String())
	require.Equal(t, 1, d.Step)
	require.Equal(t, "research", d.Node)
	require.Contains(t, d.Diff, `+    "FACT ABOUT OTTERS"`)
}

func TestAnExtraCallIsMissingFromTheRecording(t *testing.T) {
	t.Parallel()
	db, _ := record(t)
	tool := replay.Tool(offlineTool{t})
	g := qaGraph(prompt, offline{t}, offlineTool{t}, same).AddNode("check", func(ctx context.Context, s qa) (state.Update[qa], error) {
		_, err := tool.Call(ctx, "again")
		return state.Update[qa]{}, err
	}).AddEdge("write", "check")
	rep, err := replay.Run(t.Context(), g, openCopy(t, db), "t")
	require.NoError(t, err)
	d := rep.First()
	require.NotNil(t, d)
	require.Equal(t, replay.MissingCall, d.Kind)
	require.Equal(t, "check", d.Node)
	require.Equal(t, 3, d.Step)
	require.Contains(t, d.Diff, `+"again"`)
}

func TestTheRecordingIsEncryptedWithTheCheckpoints(t *testing.T) {
	t.Parallel()
	ring, err := encrypt.NewKeyring(encrypt.Key{ID: "k", Secret: []byte(strings.Repeat("s", encrypt.KeySize))})
	require.NoError(t, err)
	raw := memory.New()
	saver := encrypt.Wrap(raw, ring)
	model := &scripted{replies: []string{"Otters hold hands."}}
	app, err := qaGraph(prompt, model, &lookup{}, same).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(t.Context(), state.Writes(question.Set("Otters")), graph.WithThread("t"))
	require.NoError(t, err)

	records := 0
	for tup, err := range raw.List(t.Context(), checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		for _, w := range tup.PendingWrites {
			if w.Channel == graph.RecordChannel {
				records++
				require.NotContains(t, string(w.Value), "Otters")
			}
		}
	}
	require.Equal(t, 2, records)
	rep, err := replay.Run(t.Context(), qaGraph(prompt, offline{t}, offlineTool{t}, same), saver, "t")
	require.NoError(t, err)
	require.Nil(t, rep.First())
	require.Equal(t, "Otters hold hands.", rep.Output.Answer)
}

func TestRunNamesAThreadItCannotRead(t *testing.T) {
	t.Parallel()
	_, err := replay.Run(context.Background(), qaGraph(prompt, offline{t}, offlineTool{t}, same), memory.New(), "nope")
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorContains(t, err, `"nope"`)
}
