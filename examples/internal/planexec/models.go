package planexec

import (
	"context"
	"time"

	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
)

// agentConfig is the delivery case's agent: offline, or with a real model
// (-model openai|ollama, through examples/internal/models) planning,
// replanning and answering. It also describes the setup in a few words for
// the header.
func agentConfig(ctx context.Context, kind string, c *delivery.Case, getenv func(string) string) (nodes.AgentConfig, string, error) {
	cfg := c.AgentConfig()
	if kind == "" {
		return cfg, "offline: template planner, rule-based replanning, template responder, simulated tools", nil
	}
	llm, label, err := models.Named(ctx, kind, getenv)
	if err != nil {
		return cfg, "", err
	}
	// The model takes the planner, the replanner's partial and full
	// replans, and the responder; the case's checker, read-only guard and
	// simulated tools stay.
	cfg.Model = llm
	cfg.Planner, cfg.Replanner, cfg.Responder = nil, nil, nil
	cfg.Budget.MaxWall = 5 * time.Minute // models are slower than templates
	return cfg, label + " plans, replans and answers; simulated tools", nil
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
