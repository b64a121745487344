package agent_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// BenchmarkLatestStateOfAChat reads the latest state of a 50-turn chat on
// SQLite by a fresh graph (no state cache), with the messages field
// stored as deltas (chat.Messages) and whole at every step (whole).
//
//	go test ./chat/agent -run '^$' -bench LatestStateOfAChat
func BenchmarkLatestStateOfAChat(b *testing.B) {
	for _, whole := range []bool{false, true} {
		name := "deltas"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			lite, err := sqlite.Open(filepath.Join(b.TempDir(), "chat.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer lite.Close()
			app, msgs := chatGraph(b, lite, whole)
			for i := 1; i <= 50; i++ {
				if _, err := app.Invoke(b.Context(), state.Writes(msgs.Set([]chat.Message{question(i)})), graph.WithThread("t")); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				fresh, _ := chatGraph(b, lite, whole)
				snap, err := fresh.State(b.Context(), graph.WithThread("t"))
				if err != nil || len(snap.Values.Messages) != 200 {
					b.Fatal(err)
				}
			}
		})
	}
}
