package nodes

import (
	"time"

	"github.com/stategraph/stategraph/nodes/plan"
)

// AgentConfig is the rule-based agent for the case, with no model: the
// template planner, the executor's checker, an adaptive replanner whose
// partial replan is ReplanTemplate, the case's responder, the read-only guard
// ("query only: change nothing") and a budget of 20 tool calls, 2 replans
// and a minute. Set Model (and clear Planner, Replanner or Responder) to let
// a model take a part.
func (c *DeliveryCase) AgentConfig() AgentConfig {
	ts := c.Tools()
	return AgentConfig{
		Planner:   &AdaptivePlanner{Templates: &TemplatePlanner{Templates: []PlanTemplate{c.Template()}, Tools: ts}},
		Tools:     ts,
		Replanner: AdaptiveReplanner{Incremental: IncrementalFix{}, Partial: PartialReplan{Template: c.ReplanTemplate}},
		Responder: c.Responder(),
		Checker:   c.Checker(),
		Guards:    []plan.Guard{plan.ReadOnlyGuard(ts)},
		Budget:    Budget{MaxToolCalls: 20, MaxModelCalls: 30, MaxReplans: 2, MaxWall: time.Minute},
	}
}
