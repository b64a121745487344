package effect_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

func TestTheLedgerIsEncryptedWithTheCheckpoints(t *testing.T) {
	t.Parallel()
	ring, err := encrypt.NewKeyring(encrypt.Key{ID: "k1", Secret: []byte(strings.Repeat("k", encrypt.KeySize))})
	require.NoError(t, err)
	raw := memory.New()
	card := &cardTool{}
	card.fail.Store(true) // the call stays in doubt: its start record is kept
	c := payGraph(t, encrypt.Wrap(raw, ring), effect.Wrap(card), nil)
	_, err = c.Invoke(t.Context(), input, graph.WithThread("t"))
	require.Error(t, err)

	tup, err := raw.Get(t.Context(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	records := 0
	for _, w := range tup.PendingWrites {
		if w.Channel == "__durable__" {
			records++
			require.NotContains(t, string(w.Value), "charge_card", "a ledger record is stored encrypted")
		}
	}
	require.Equal(t, 1, records, "the start record")

	card.fail.Store(false)
	_, err = c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread("t"))
	require.Equal(t, "charge_card", inDoubtOf(t, err).Call.Tool, "read back through the keyring")
	require.EqualValues(t, 1, card.calls.Load())
}
