package nodes_test

import (
	"testing"
	"time"

	"github.com/stategraph/stategraph/nodes"
)

// BenchmarkAgentScenario answers the five scenario tasks (one op: all
// five), with the tools' latencies slept for real and the scripted model
// answering at once, by the ReAct loop, by the agent round by round, and by
// the agent with eager steps. It reports per op the model calls, the
// tokens (a token per four characters, see scenarioModel), the sum of the
// plans' critical paths (the longest chain of tool latencies of each task),
// the wall time over that sum, and for the agent the wall time over the
// critical path of the calls' measured durations (a loaded machine sleeps
// longer than asked: this ratio is the runtime's own overhead); ns/op is
// the wall time of the five. It
// asserts nothing timed: TestTheScenarioTasksAreAnsweredRight checks the
// answers and the counts.
//
//	go test ./nodes -run '^$' -bench AgentScenario -benchtime 20x
func BenchmarkAgentScenario(b *testing.B) {
	var crit time.Duration
	for _, t := range scenarioTasks {
		crit += t.criticalPath()
	}
	ts := newScenarioWorld(true).tools()
	report := func(b *testing.B, calls, tokens int, wall, measured time.Duration) {
		n := float64(b.N)
		b.ReportMetric(float64(calls)/n, "model-calls/op")
		b.ReportMetric(float64(tokens)/n, "tokens/op")
		b.ReportMetric(float64(crit.Milliseconds()), "critical-ms/op")
		b.ReportMetric(float64(wall)/n/float64(crit), "wall/critical")
		if measured > 0 {
			b.ReportMetric(float64(wall)/float64(measured), "wall/measured-critical")
		}
	}
	b.Run("react", func(b *testing.B) {
		var calls, tokens int
		var wall time.Duration
		for b.Loop() {
			for _, t := range scenarioTasks {
				r, err := runReAct(b.Context(), ts, t)
				if err != nil {
					b.Fatal(err)
				}
				calls, tokens, wall = calls+r.modelCalls, tokens+r.tokens, wall+r.wall
			}
		}
		report(b, calls, tokens, wall, 0)
	})
	for _, mode := range []struct {
		name string
		opts []nodes.AgentOption
	}{{"rounds", nil}, {"eager", []nodes.AgentOption{nodes.WithEagerSteps(0)}}} {
		b.Run(mode.name, func(b *testing.B) {
			app, err := scenarioAgent(ts, mode.opts...)
			if err != nil {
				b.Fatal(err)
			}
			var calls, tokens int
			var wall, measured time.Duration
			for b.Loop() {
				for _, t := range scenarioTasks {
					r, err := runAgent(b.Context(), app, t)
					if err != nil {
						b.Fatal(err)
					}
					if err := rightAnswer(t, r.answer); err != nil {
						b.Fatal(err)
					}
					calls, tokens, wall, measured = calls+r.modelCalls, tokens+r.tokens, wall+r.wall, measured+r.measured
				}
			}
			report(b, calls, tokens, wall, measured)
		})
	}
}
