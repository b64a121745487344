package checkpointtest

import (
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// flat is a channel value in a form require.Equal compares: nil and empty
// snapshots are equal, and no deltas is an empty list.
type flat struct {
	Version  string
	Snapshot string
	Deltas   []string
}

// flatValues returns vs in comparable form.
func flatValues(vs map[string]checkpoint.Value) map[string]flat {
	out := make(map[string]flat, len(vs))
	for ch, v := range vs {
		w := flat{Version: v.Version, Snapshot: string(v.Snapshot), Deltas: []string{}}
		for _, d := range v.Deltas {
			w.Deltas = append(w.Deltas, string(d))
		}
		out[ch] = w
	}
	return out
}

// flatVal is the expected value of a channel: a snapshot and the deltas
// after it, oldest first.
func flatVal(version, snapshot string, deltas ...string) flat {
	if deltas == nil {
		deltas = []string{}
	}
	return flat{Version: version, Snapshot: snapshot, Deltas: deltas}
}

// flatWrite is a pending write in comparable form.
type flatWrite struct {
	Task    string
	Index   int
	Channel string
	Value   string
}

// flatWrites returns ws in comparable form.
func flatWrites(ws []checkpoint.PendingWrite) []flatWrite {
	out := []flatWrite{}
	for _, w := range ws {
		out = append(out, flatWrite{w.TaskID, w.Index, w.Channel, string(w.Value)})
	}
	return out
}

// pending builds a pending write for PutWrites, which stamps the task.
func pending(index int, channel, v string) checkpoint.PendingWrite {
	return checkpoint.PendingWrite{Index: index, Channel: channel, Value: []byte(v)}
}

// mdJSON returns md as JSON, for comparing metadata after a round trip.
func mdJSON(tb testing.TB, md checkpoint.Metadata) string {
	tb.Helper()
	b, err := json.Marshal(md)
	require.NoError(tb, err)
	return string(b)
}

// randomBytes returns n random bytes: data no database compresses.
func randomBytes(tb testing.TB, n int) []byte {
	tb.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(tb, err)
	return b
}
