package planexec

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
)

// progress prints a run's events so a person can follow it: each node as
// it starts and ends, the tool calls, the plan as a numbered list, the
// replan and why, with the time elapsed since the program started.
type progress struct {
	w        io.Writer
	start    time.Time
	started  map[string]time.Time // task id → when it started
	state    nodes.AgentState     // the state after the last step (Values)
	execStep int                  // the step whose execute tasks were announced
	calls    int                  // tool calls made by this process
	streamed strings.Builder      // the answer's tokens, as the responder's model wrote them
	// eager says each execute task runs a whole round (the default; not
	// -rounds), its steps reported as they start and end (nodes.StepEvent).
	eager bool
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, start: time.Now(), started: map[string]time.Time{}, execStep: -1}
}

// indent lines up detail lines under a line's text.
const indent = "                           "

// line prints one progress line: elapsed time, graph step, text. A graph
// step is a superstep of the graph (one checkpoint each), not a step of
// the agent's plan (order, stock_a, …).
func (p *progress) line(step int, format string, args ...any) {
	fmt.Fprintf(p.w, "%8.3fs  graph step %-2d %s\n", time.Since(p.start).Seconds(), step, fmt.Sprintf(format, args...))
}

// detail prints lines under the last progress line.
func (p *progress) detail(format string, args ...any) {
	fmt.Fprintf(p.w, indent+format+"\n", args...)
}

// event prints one stream event.
func (p *progress) event(ev graph.Event[nodes.AgentState]) {
	switch ev.Mode {
	case graph.Values:
		p.state = ev.State
	case graph.Custom:
		switch c := ev.Custom.(type) {
		case toolCall:
			p.calls++
			p.line(ev.Step, "  → %s %s", c.Tool, c.Input)
		case toolBlocked:
			p.line(ev.Step, "  (test hook) %s blocks until the run is interrupted", c.Tool)
		case nodes.StepEvent:
			p.stepEvent(ev.Step, c)
		case nodes.ModelCall:
			if c.Node == nodes.NodeRespond && c.Attempt > 1 && p.streamed.Len() > 0 {
				fmt.Fprint(p.w, "\n(the model call failed and is retried: the answer again)\n")
				p.streamed.Reset()
			}
		}
	case graph.Messages:
		if ev.Node == nodes.NodeRespond {
			// The answer as it arrives; the plans the planner and
			// replanner stream are JSON, shown once parsed.
			if p.streamed.Len() == 0 {
				fmt.Fprint(p.w, "\nAnswer\n──────\n")
			}
			p.streamed.Write(ev.Chunk)
			fmt.Fprint(p.w, string(ev.Chunk))
		}
	case graph.Tasks:
		if ev.Task.Result {
			p.taskDone(ev)
		} else {
			p.taskStart(ev)
		}
	}
}

func (p *progress) taskStart(ev graph.Event[nodes.AgentState]) {
	p.started[ev.TaskID] = time.Now()
	switch ev.Node {
	case nodes.NodePlanner:
		p.line(ev.Step, "▶ planner: planning for the goal")
	case nodes.NodeExecute:
		if p.execStep == ev.Step {
			return // announced with the step's first task
		}
		p.execStep = ev.Step
		var ids []string
		for _, s := range p.state.Plan.Steps {
			if s.Status == plan.StatusRunning {
				ids = append(ids, s.ID)
			}
		}
		if p.eager {
			p.line(ev.Step, "▶ execute %s (one task: each step as soon as the steps it depends on complete)", strings.Join(ids, ", "))
		} else if len(ids) > 1 {
			p.line(ev.Step, "▶ execute %s (in parallel, one task each)", strings.Join(ids, ", "))
		} else {
			p.line(ev.Step, "▶ execute %s", strings.Join(ids, ", "))
		}
	case nodes.NodeReplan:
		p.line(ev.Step, "▶ replan: recording the round's outcomes")
	case nodes.NodeRespond:
		p.line(ev.Step, "▶ respond: writing the answer")
	default:
		p.line(ev.Step, "▶ %s", ev.Node)
	}
}

func (p *progress) taskDone(ev graph.Event[nodes.AgentState]) {
	took := ""
	if t, ok := p.started[ev.TaskID]; ok {
		took = " (" + round(time.Since(t)) + ")"
		delete(p.started, ev.TaskID)
	}
	if ev.Task.Err != nil {
		// The run fails with this error, which run prints once, on stderr.
		p.line(ev.Step, "✗ %s%s: failed", ev.Node, took)
		return
	}
	if ev.Task.Cached {
		took = " (saved before the interruption: not run again)"
	}
	var revised *plan.Plan
	var decision *nodes.Decision
	var outcome *nodes.StepOutcome
	var outcomes int
	var resp *nodes.Response
	for _, w := range ev.Update.Writes {
		switch v := w.Value().(type) {
		case plan.Plan:
			revised = &v
		case []nodes.Decision:
			if len(v) > 0 {
				decision = &v[0]
			}
		case []nodes.StepOutcome:
			if len(v) > 0 {
				outcome = &v[0]
			}
			outcomes = len(v)
		case nodes.Response:
			resp = &v
		}
	}
	switch {
	case ev.Node == nodes.NodePlanner && revised != nil:
		p.line(ev.Step, "✓ planner%s: a plan of %d steps", took, len(revised.Steps))
		p.plan(*revised)
	case ev.Node == nodes.NodeExecute && p.eager:
		p.line(ev.Step, "✓ execute%s: the round ended, %d steps ran", took, outcomes)
	case ev.Node == nodes.NodeExecute && outcome != nil:
		p.line(ev.Step, "✓ execute %s%s: %s", outcome.StepID, took, describeOutcome(*outcome))
	case ev.Node == nodes.NodeReplan && decision != nil:
		p.decision(ev.Step, took, *decision, revised)
	case ev.Node == nodes.NodeRespond && resp != nil:
		what := "the answer is written"
		if !resp.Complete {
			what = "a partial answer is written"
		}
		p.line(ev.Step, "✓ respond%s: %s", took, what)
	default:
		p.line(ev.Step, "✓ %s%s", ev.Node, took)
	}
}

// stepEvent prints a step of an eager round as it starts and ends.
func (p *progress) stepEvent(step int, e nodes.StepEvent) {
	switch {
	case e.Outcome == nil:
		p.line(step, "  ▶ %s", e.StepID)
	case e.Saved:
		p.line(step, "  ✓ %s (saved before the interruption: not run again)", e.StepID)
	default:
		p.line(step, "  ✓ %s: %s", e.StepID, describeOutcome(*e.Outcome))
	}
}

// describeOutcome renders an execute task's outcome in one line.
func describeOutcome(o nodes.StepOutcome) string {
	switch {
	case o.Blocked:
		return "BLOCKED — " + o.BlockReason
	case o.Status == plan.StatusCompleted:
		return o.Conclusion
	case o.ErrKind != "":
		return fmt.Sprintf("%s (%s) — %s", strings.ToUpper(string(o.Status)), o.ErrKind, o.Err)
	}
	return fmt.Sprintf("%s — %s", strings.ToUpper(string(o.Status)), o.Err)
}

// decision prints the replan node's decision; a revision with why, what
// it kept and changed, and the new plan.
func (p *progress) decision(step int, took string, d nodes.Decision, revised *plan.Plan) {
	switch d.Action {
	case nodes.ActionRevise:
		strategy := ""
		if d.Info != nil {
			strategy = " (" + d.Info.Strategy + ")"
		}
		p.line(step, "✓ replan%s: REPLAN%s", took, strategy)
		p.detail("why: %s", d.Reason)
		if d.Info != nil {
			p.detail("kept %s · removed %s · added %s",
				list(d.Info.Kept), list(d.Info.Removed), list(d.Info.Added))
		}
		if revised != nil {
			p.detail("revised plan:")
			p.plan(*revised)
		}
	case nodes.ActionContinue, nodes.ActionFinish:
		p.line(step, "✓ replan%s: %s — %s", took, d.Action, d.Reason)
	default:
		p.line(step, "✓ replan%s: %s — %s", took, strings.ToUpper(string(d.Action)), d.Reason)
	}
}

// plan prints a plan as a numbered list: status, id, tool, description
// and dependencies.
func (p *progress) plan(pl plan.Plan) {
	idW, toolW := 0, 0
	for _, s := range pl.Steps {
		idW, toolW = max(idW, len(s.ID)), max(toolW, len(orDefault(s.Tool, "(answer)")))
	}
	for i, s := range pl.Steps {
		mark := map[plan.StepStatus]string{plan.StatusCompleted: "✓", plan.StatusFailed: "✗", plan.StatusSkipped: "-"}[s.Status]
		after := ""
		if len(s.DependsOn) > 0 {
			after = " (after " + strings.Join(s.DependsOn, ", ") + ")"
		}
		p.detail("%2d. %1s %-*s  %-*s  %s%s", i+1, mark, idW, s.ID, toolW, orDefault(s.Tool, "(answer)"), s.Description, after)
	}
}

// list joins ids, or says "none".
func list(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// round renders a duration briefly: 0.3ms, 12ms, 1.2s.
func round(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
