package chatdemo

import (
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// AgentWithTools is Agent with the tools ts instead of Tools(nil): the
// same tools wrapped, such as by telemetry's Tools so that each call is a
// span in the studio's trace view.
func AgentWithTools(model llms.Model, ts []tools.Tool) *agent.Agent[agent.NoResponse] {
	return agent.New[agent.NoResponse](model, ts, agent.WithPrompt(Prompt), agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewTools("calculate")}))
}
