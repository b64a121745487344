package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScriptedReview(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	ticket, err := run(context.Background(), Script(false, "the refund reaches your card within 3 days", true), &out)
	require.NoError(t, err)
	require.True(t, ticket.Sent)
	require.Equal(t, 2, ticket.Drafts, "the note sent the graph back to draft")
	require.Equal(t, []string{"the refund reaches your card within 3 days"}, ticket.Notes)
	require.True(t, strings.HasSuffix(ticket.Draft, "The refund reaches your card within 3 days."))
	// Three pauses: approve? (no), what to change? — both in the same
	// review task at step 1, answered in order — then approve? (yes) at step 3.
	require.Equal(t, 3, strings.Count(out.String(), "paused in review"))
	require.Equal(t, 2, strings.Count(out.String(), "paused in review at step 1"))
	require.Contains(t, out.String(), "paused in review at step 3: Send this reply?")
	require.Contains(t, out.String(), "reviewer: no\n")
	require.Contains(t, out.String(), "reviewer: yes\n")
}

func TestReviewFromStandardInput(t *testing.T) {
	t.Parallel()
	ticket, err := run(context.Background(), Prompt(strings.NewReader("y\n")), &strings.Builder{})
	require.NoError(t, err)
	require.True(t, ticket.Sent)
	require.Equal(t, 1, ticket.Drafts)
	require.Empty(t, ticket.Notes)

	ticket, err = run(context.Background(), Prompt(strings.NewReader("n\nsign it\nyes\n")), &strings.Builder{})
	require.NoError(t, err)
	require.Equal(t, []string{"sign it"}, ticket.Notes)
	require.True(t, strings.HasSuffix(ticket.Draft, "Sign it."))
}

func TestReviewWithoutAnAnswerStopsPaused(t *testing.T) {
	t.Parallel()
	ticket, err := run(context.Background(), Prompt(strings.NewReader("")), &strings.Builder{})
	require.ErrorContains(t, err, "no answer")
	require.False(t, ticket.Sent)
	require.Equal(t, 1, ticket.Drafts)
}
