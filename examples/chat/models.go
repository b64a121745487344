package main

import (
	"context"

	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/tmc/langchaingo/llms"
)

// chatModel returns the model -model names (none: the scripted model,
// offline), and a few words about it.
func chatModel(ctx context.Context, kind string, getenv func(string) string) (llms.Model, string, error) {
	if kind == "" {
		return chatdemo.Scripted{}, "offline: a scripted model", nil
	}
	return models.Named(ctx, kind, getenv)
}
