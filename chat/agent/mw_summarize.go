package agent

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat/history"
	"github.com/tmc/langchaingo/llms"
)

// Summarize keeps the history within a token budget (LangChain's
// summarizationMiddleware): before an agent-node model call whose
// history (ModelCall.History, the whole of it, whatever WithWindow sends)
// counts more than MaxTokens, it asks a model to summarise the
// older messages (history.Summarize, with the earlier summary if any) and
// rewrites the history in the state as the summary — a system message
// with id history.SummaryID — followed by the recent messages, Keep of
// them verbatim. The model is sent the rewritten history; the summary is
// in the state, so History shows it and later calls build on it. Each
// summary is a Step ("summarize", "summarized").
type Summarize struct {
	Base
	// Model writes the summary; nil: the call's model.
	Model llms.Model
	// MaxTokens is the budget that triggers a summary (required: zero
	// never summarises).
	MaxTokens int
	// Keep is what stays verbatim (default: MaxTokens/2 tokens, the
	// opening system messages kept).
	Keep history.Window
	// Prompt asks for the summary (default history.DefaultSummaryPrompt).
	Prompt string
}

// WrapModel summarises before the call when the messages are over budget.
func (s Summarize) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	if s.MaxTokens <= 0 || call.Node != NodeAgent {
		return next(ctx, call)
	}
	keep := s.Keep
	if keep.MaxMessages == 0 && keep.MaxTokens == 0 {
		keep = history.Window{MaxTokens: s.MaxTokens / 2, KeepSystem: true, Count: keep.Count}
	}
	count := keep.Count
	if count == nil {
		count = history.ApproxTokens
	}
	total := 0
	for _, m := range call.History {
		total += count(m)
	}
	if total <= s.MaxTokens {
		return next(ctx, call)
	}
	model := s.Model
	if model == nil {
		model = call.Model
	}
	rewrite, err := history.Summarize(ctx, model, call.History, history.Summary{Window: keep, Prompt: s.Prompt})
	if err != nil {
		return nil, fmt.Errorf("agent: Summarize: %w", err)
	}
	if rewrite != nil {
		call.Write(rewrite...)
		call.Messages = rewrite[1:] // without the RemoveAll marker; the summary stands for any window
		Record(ctx, Step{Middleware: "summarize", Action: "summarized",
			Detail: fmt.Sprintf("%d tokens over the budget of %d; %d messages kept", total, s.MaxTokens, len(rewrite)-2)})
	}
	return next(ctx, call)
}
