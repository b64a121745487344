package delivery

import (
	"time"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
)

// AgentConfig is the rule-based agent for the case, with no model: the
// template planner, the executor's checker, an adaptive replanner whose
// partial replan is ReplanTemplate, the case's responder, the read-only guard
// ("query only: change nothing") and a budget of 20 tool calls, 2 replans
// and a minute. Set Model (and clear Planner, Replanner or Responder) to let
// a model take a part.
func (c *Case) AgentConfig() nodes.AgentConfig {
	ts := c.Tools()
	return nodes.AgentConfig{
		Planner:   &nodes.AdaptivePlanner{Templates: &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: ts}},
		Tools:     ts,
		Replanner: nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Template: c.ReplanTemplate}},
		Responder: c.Responder(),
		Checker:   c.Checker(),
		Guards:    []plan.Guard{plan.ReadOnlyGuard(ts)},
		Budget:    nodes.Budget{MaxToolCalls: 20, MaxModelCalls: 30, MaxReplans: 2, MaxWall: time.Minute},
	}
}
