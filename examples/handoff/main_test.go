package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTriageHandsTheConversationToBilling(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	desk, err := Run(context.Background(), &out)
	require.NoError(t, err)
	assert.Equal(t, "— triage done\n— billing done\n", out.String()[:strings.Index(out.String(), "human:")])
	require.Len(t, desk.Messages, 6)
	assert.Contains(t, out.String(), "tool transfer_to_billing: Transferred to billing.")
	assert.Contains(t, out.String(), "tool lookup_order: order A-1042: 42 EUR")
	assert.Contains(t, out.String(), "ai: I have refunded the duplicate charge")
	assert.Equal(t, 2, desk.ModelCalls, "billing's calls (triage's went with its handoff)")
}

// The card number the customer typed is redacted by billing's middleware
// before billing's model sees it, in the shared history too.
func TestTheCardNumberIsRedactedInTheSharedHistory(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	desk, err := Run(context.Background(), &out)
	require.NoError(t, err)
	assert.NotContains(t, out.String(), "4111")
	assert.Contains(t, desk.Messages[0].Text(), "[REDACTED_CARD_NUMBER]")
	assert.Contains(t, out.String(), "step: redact redacted:")
}
