package nodes

import (
	"fmt"
	"unicode/utf8"

	"github.com/stategraph/stategraph/nodes/plan"
)

// defaultOutputCap is how many bytes of one tool output a prompt shows
// when no cap is set (LLMResponder.OutputCap, PartialReplan.OutputCap,
// ReActExecutor.OutputCap, WithOutputCap): about 2,000 tokens. A longer
// output is cut there and marked (CapOutput); the whole output stays in
// the run's state (the step's result, its outcome's Output, the audit
// record), where State and History show it.
const defaultOutputCap = 8000

// WithOutputCap sets how many bytes of one tool output the prompts of
// the agent's default responder and replanner and of WithReAct's steps
// show (n ≤ 0: 8,000 bytes): a tool that returns 200 KB never puts
// 200 KB into a prompt. A ReActExecutor whose OutputCap is set keeps its
// own.
func WithOutputCap(n int) AgentOption { return func(o *agentOptions) { o.outputCap = n } }

// CapOutput returns output as a prompt shows it: whole when it has at
// most limit bytes (limit ≤ 0: 8,000 bytes), else its first limit
// bytes (cut at a character boundary) and a marker saying how much was
// left out and where the whole output is.
func CapOutput(output string, limit int) string {
	if limit <= 0 {
		limit = defaultOutputCap
	}
	if len(output) <= limit {
		return output
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(output[cut]) {
		cut--
	}
	return output[:cut] + fmt.Sprintf("\n[… output truncated for this prompt: %d of %d bytes shown; the whole output is in the run's state]", cut, len(output))
}

// capSteps returns steps with each result, error and piece of evidence
// capped for a prompt (CapOutput).
func capSteps(steps []plan.Step, limit int) []plan.Step {
	out := make([]plan.Step, len(steps))
	for i, s := range steps {
		s = s.Clone()
		s.Result = CapOutput(s.Result, limit)
		s.Error = CapOutput(s.Error, limit)
		for j, e := range s.Evidence {
			s.Evidence[j] = CapOutput(e, limit)
		}
		out[i] = s
	}
	return out
}

// capAll returns each of texts capped for a prompt (CapOutput).
func capAll(texts []string, limit int) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = CapOutput(t, limit)
	}
	return out
}
