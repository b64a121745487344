package nodes_test

import (
	"testing"
	"time"
)

// BenchmarkAgentScenario answers the five scenario tasks (one op: all
// five) with the tools' latencies slept for real and the scripted model's
// modelled latency (modelLatency: a time to the first token and a time per
// token written) slept for each call. The ReAct sub-benchmarks report the
// two loops alone: "react" with parallel tool calls (one turn per level of
// the plan, the baseline) and "react-sequential" (one tool call a turn).
// The agent's ("eager", the default, and "rounds", WithRoundByRound) run,
// in each op, the tasks by the agent and by the baseline ReAct loop on the
// same model and tools, and report the agent's model calls, tokens (a
// token per four characters, see scenarioModel) and wall time, each also
// as a ratio of the baseline's in the same op, the agent's wall time over
// the sum of the plans' critical paths (the longest chain of tool
// latencies of each task), and over its least possible wall time: those
// critical paths and its own model calls' modelled latencies
// ("wall/bound"; the planner must answer before a tool runs). ns/op is
// the wall time of the op, both loops included for the agent's. It asserts
// nothing timed: TestTheScenarioTasksAreAnsweredRight checks the answers
// and the counts.
//
//	go test ./nodes -run '^$' -bench AgentScenario -benchtime 5x
func BenchmarkAgentScenario(b *testing.B) {
	var crit time.Duration
	for _, t := range scenarioTasks {
		crit += t.criticalPath()
	}
	ts := newScenarioWorld(true).tools()
	baseline := scenarioModel{parallel: true, latency: modelLatency}
	react := func(b *testing.B, m scenarioModel) scenarioRun {
		var sum scenarioRun
		for _, t := range scenarioTasks {
			r, err := runReAct(b.Context(), m, ts, t)
			if err != nil {
				b.Fatal(err)
			}
			sum.modelCalls, sum.tokens, sum.wall = sum.modelCalls+r.modelCalls, sum.tokens+r.tokens, sum.wall+r.wall
		}
		return sum
	}
	report := func(b *testing.B, r scenarioRun) {
		n := float64(b.N)
		b.ReportMetric(float64(r.modelCalls)/n, "model-calls/op")
		b.ReportMetric(float64(r.tokens)/n, "tokens/op")
		b.ReportMetric(float64(r.wall.Milliseconds())/n, "wall-ms/op")
		b.ReportMetric(float64(r.wall)/n/float64(crit), "wall/critical")
	}
	for _, loop := range []struct {
		name string
		m    scenarioModel
	}{{"react", baseline}, {"react-sequential", scenarioModel{latency: modelLatency}}} {
		b.Run(loop.name, func(b *testing.B) {
			var sum scenarioRun
			for b.Loop() {
				r := react(b, loop.m)
				sum.modelCalls, sum.tokens, sum.wall = sum.modelCalls+r.modelCalls, sum.tokens+r.tokens, sum.wall+r.wall
			}
			report(b, sum)
		})
	}
	for _, mode := range agentModes {
		b.Run(mode.name, func(b *testing.B) {
			app, err := scenarioAgent(scenarioModel{latency: modelLatency}, ts, mode.opts...)
			if err != nil {
				b.Fatal(err)
			}
			var agent, base scenarioRun
			for b.Loop() {
				r := react(b, baseline)
				base.modelCalls, base.tokens, base.wall = base.modelCalls+r.modelCalls, base.tokens+r.tokens, base.wall+r.wall
				for _, t := range scenarioTasks {
					r, err := runAgent(b.Context(), app, t)
					if err != nil {
						b.Fatal(err)
					}
					if err := rightAnswer(t, r.answer); err != nil {
						b.Fatal(err)
					}
					agent.modelCalls, agent.tokens, agent.wall = agent.modelCalls+r.modelCalls, agent.tokens+r.tokens, agent.wall+r.wall
					agent.bound += r.bound
				}
			}
			report(b, agent)
			b.ReportMetric(float64(agent.modelCalls)/float64(base.modelCalls), "calls-vs-react")
			b.ReportMetric(float64(agent.tokens)/float64(base.tokens), "tokens-vs-react")
			b.ReportMetric(float64(agent.wall)/float64(base.wall), "wall-vs-react")
			b.ReportMetric(float64(agent.wall)/float64(agent.bound), "wall/bound")
		})
	}
}
