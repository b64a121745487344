package main

import (
	"context"
	"io"
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
	// review task at step 2, answered in order — then approve? (yes) at step 4.
	require.Equal(t, 3, strings.Count(out.String(), "paused in review"))
	require.Equal(t, 2, strings.Count(out.String(), "paused in review at step 2"))
	require.Contains(t, out.String(), "paused in review at step 4: Send this reply?")
	require.Contains(t, out.String(), "reviewer: no\n")
	require.Contains(t, out.String(), "reviewer: yes\n")
}

func TestReviewFromStandardInput(t *testing.T) {
	t.Parallel()
	ticket, err := run(context.Background(), Prompt(strings.NewReader("y\n"), io.Discard), &strings.Builder{})
	require.NoError(t, err)
	require.True(t, ticket.Sent)
	require.Equal(t, 1, ticket.Drafts)
	require.Empty(t, ticket.Notes)

	ticket, err = run(context.Background(), Prompt(strings.NewReader("n\nsign it\nyes\n"), io.Discard), &strings.Builder{})
	require.NoError(t, err)
	require.Equal(t, []string{"sign it"}, ticket.Notes)
	require.True(t, strings.HasSuffix(ticket.Draft, "Sign it."))
}

// A yes/no question shows its choices and asks again after a reply that
// is neither: "maybe" is not a no.
func TestYesNoAsksAgainUntilAnswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		stdin string
		sent  bool
		asked int // how many times the first question was asked
	}{
		{"y", "y\n", true, 1},
		{"YES", "YES\n", true, 1},
		{"No, then a note", " No \nsign it\nyes\n", true, 1},
		{"maybe, then n", "maybe\nn\nsign it\ny\n", true, 2},
		{"yeah, then nothing", "yeah\n", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			ticket, err := run(context.Background(), Prompt(strings.NewReader(tc.stdin), &out), &out)
			require.Equal(t, tc.sent, ticket.Sent)
			got := out.String()
			require.Contains(t, got, "Send this reply?\n  Dear Ada")
			require.Contains(t, got, "your answer [y/n]: ")
			if !tc.sent {
				require.ErrorContains(t, err, "no answer")
				require.Contains(t, got, `Please answer y or n (not "yeah").`)
				require.NotContains(t, got, "reviewer: no")
				return
			}
			require.NoError(t, err)
			first, _, _ := strings.Cut(got, "reviewer:")
			require.Equal(t, tc.asked, strings.Count(first, "your answer [y/n]: "))
			if tc.asked > 1 {
				require.Contains(t, got, `Please answer y or n (not "maybe").`)
			}
			if strings.Contains(tc.stdin, "sign it") {
				require.Contains(t, got, "What should change?\nyour answer: \nreviewer: sign it\n")
			}
		})
	}
}

func TestReviewWithoutAnAnswerStopsPaused(t *testing.T) {
	t.Parallel()
	ticket, err := run(context.Background(), Prompt(strings.NewReader(""), io.Discard), &strings.Builder{})
	require.ErrorContains(t, err, "no answer")
	require.False(t, ticket.Sent)
	require.Equal(t, 1, ticket.Drafts)
}

// A note that says nothing is refused: the review asks again, saying
// why, until a note says something; only that note is kept.
func TestEmptyRevisionRequestIsRefused(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	ticket, err := run(context.Background(), Script(false, "", "   ", "sign it", true), &out)
	require.NoError(t, err)
	require.True(t, ticket.Sent)
	require.Equal(t, []string{"sign it"}, ticket.Notes)
	require.Equal(t, 2, ticket.Drafts)
	require.Equal(t, 2, strings.Count(out.String(), "paused in review at step 2: "+emptyNote+"\n"))
	require.Contains(t, out.String(), "What should change?\nreviewer: \npaused in review at step 2: An empty note changes nothing: the same draft would come back. What should change?\n")
}

func TestScriptRefusesAnAnswerOfTheWrongKind(t *testing.T) {
	t.Parallel()
	_, err := run(context.Background(), Script("yes"), &strings.Builder{})
	require.ErrorContains(t, err, `the script's next answer, "yes", does not answer "Send this reply?`)
	_, err = run(context.Background(), Script(false, true), &strings.Builder{})
	require.ErrorContains(t, err, `the script's next answer, "yes", does not answer "What should change?"`)
}
