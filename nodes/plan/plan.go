package plan

import (
	"encoding/json"
	"slices"
)

// StepStatus is the lifecycle state of a plan step.
type StepStatus string

// The statuses a step moves through. The zero value "" reads as pending.
const (
	StatusPending   StepStatus = "pending"
	StatusRunning   StepStatus = "running"
	StatusCompleted StepStatus = "completed"
	StatusFailed    StepStatus = "failed"
	StatusSkipped   StepStatus = "skipped"
)

// Valid reports whether s is one of the known statuses (or empty, which means pending).
func (s StepStatus) Valid() bool {
	switch s {
	case "", StatusPending, StatusRunning, StatusCompleted, StatusFailed, StatusSkipped:
		return true
	}
	return false
}

// Terminal reports whether a step in status s will not run again unless a replan resets it.
func (s StepStatus) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusSkipped
}

func (s StepStatus) orPending() StepStatus {
	if s == "" {
		return StatusPending
	}
	return s
}

// Step is one unit of work in a plan: a tool call with a JSON input that may
// reference earlier results ({{step_id.result}}, {{step_id.result.field}}).
//
// A step with an empty Tool is a synthesis step: it calls nothing, and its
// result gathers the results of its dependencies (typically the final
// "answer the user" step, written by the responder).
type Step struct {
	ID          string          `json:"id"`
	Description string          `json:"description"`
	Tool        string          `json:"tool,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	DependsOn   []string        `json:"depends_on,omitempty"`
	Status      StepStatus      `json:"status,omitempty"`
	Result      string          `json:"result,omitempty"`
	Error       string          `json:"error,omitempty"`
	Evidence    []string        `json:"evidence,omitempty"`
}

// Plan is a goal, the user's constraints and the steps that reach it. It is a
// plain value: JSON-serializable, so it can live in checkpointed graph state.
// Methods never modify the receiver; those that change a plan return a copy.
type Plan struct {
	Goal string `json:"goal"`
	// Constraints are the user's constraints, verbatim. A replan may add to
	// them but never remove or alter one (see nodes.Revise).
	Constraints []string `json:"constraints,omitempty"`
	Steps       []Step   `json:"steps"`
	// Replaced are the failed steps a revision removed, with their errors
	// (nodes.Revise records them), so that the answer can still say what
	// failed after the plan went another way.
	Replaced []Step `json:"replaced,omitempty"`
}

// Progress counts a plan's steps by status.
type Progress struct {
	Total     int `json:"total"`
	Pending   int `json:"pending"`
	Running   int `json:"running"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
}

// Fraction is the share of steps that are completed or skipped, in [0, 1].
func (p Progress) Fraction() float64 {
	if p.Total == 0 {
		return 0
	}
	return float64(p.Completed+p.Skipped) / float64(p.Total)
}

// Progress counts the plan's steps by status.
func (p Plan) Progress() Progress {
	pr := Progress{Total: len(p.Steps)}
	for _, s := range p.Steps {
		switch s.Status.orPending() {
		case StatusPending:
			pr.Pending++
		case StatusRunning:
			pr.Running++
		case StatusCompleted:
			pr.Completed++
		case StatusFailed:
			pr.Failed++
		case StatusSkipped:
			pr.Skipped++
		}
	}
	return pr
}

// Index returns the position of step id in the plan, or -1.
func (p Plan) Index(id string) int {
	return slices.IndexFunc(p.Steps, func(s Step) bool { return s.ID == id })
}

// Step returns the step with the given id.
func (p Plan) Step(id string) (Step, bool) {
	if i := p.Index(id); i >= 0 {
		return p.Steps[i], true
	}
	return Step{}, false
}

// Ready returns the pending steps whose dependencies are all finished —
// completed, or skipped — in plan order. Independent ready steps may run in
// parallel.
//
// A skipped step (nodes.OnFailureSkip) does not hold back the steps that depend
// on it: they run without its result. A reference to that result does not
// resolve (ResolveInput), so a step that needs it fails in turn (and is
// skipped under the same policy), while a step that only comes after it,
// or a synthesis step, goes on; the answer reports the skipped step as
// missing, with its error (nodes.RespondRequest.Missing).
func (p Plan) Ready() []Step {
	status := make(map[string]StepStatus, len(p.Steps))
	for _, s := range p.Steps {
		status[s.ID] = s.Status.orPending()
	}
	var ready []Step
	for _, s := range p.Steps {
		if s.Status.orPending() != StatusPending {
			continue
		}
		ok := true
		for _, d := range s.DependsOn {
			if st := status[d]; st != StatusCompleted && st != StatusSkipped {
				ok = false
				break
			}
		}
		if ok {
			ready = append(ready, s)
		}
	}
	return ready
}

// Done reports whether the plan has steps and every one is completed or
// skipped: nothing is left to run and nothing failed. A skipped step is
// done but not answered: see nodes.RespondRequest.Complete.
func (p Plan) Done() bool {
	if len(p.Steps) == 0 {
		return false
	}
	for _, s := range p.Steps {
		if st := s.Status.orPending(); st != StatusCompleted && st != StatusSkipped {
			return false
		}
	}
	return true
}

// Stuck reports whether steps are pending but none can become ready, because
// a dependency failed or does not exist.
func (p Plan) Stuck() bool {
	pr := p.Progress()
	return pr.Pending > 0 && pr.Running == 0 && len(p.Ready()) == 0
}

// Completed returns the completed steps, in plan order.
func (p Plan) Completed() []Step {
	var out []Step
	for _, s := range p.Steps {
		if s.Status == StatusCompleted {
			out = append(out, s)
		}
	}
	return out
}

// Results returns the steps by id: the context that references in step
// inputs resolve against.
func (p Plan) Results() Results {
	r := make(Results, len(p.Steps))
	for _, s := range p.Steps {
		r[s.ID] = s
	}
	return r
}

// Clone returns a deep copy of the plan.
func (p Plan) Clone() Plan {
	c := Plan{Goal: p.Goal, Constraints: slices.Clone(p.Constraints)}
	for _, s := range p.Replaced {
		c.Replaced = append(c.Replaced, s.Clone())
	}
	if p.Steps != nil {
		c.Steps = make([]Step, len(p.Steps))
		for i, s := range p.Steps {
			c.Steps[i] = s.Clone()
		}
	}
	return c
}

// Clone returns a deep copy of the step.
func (s Step) Clone() Step {
	s.Input = slices.Clone(s.Input)
	s.DependsOn = slices.Clone(s.DependsOn)
	s.Evidence = slices.Clone(s.Evidence)
	return s
}

// WithStatus returns a copy of the plan with step id set to status st.
func (p Plan) WithStatus(id string, st StepStatus) Plan {
	c := p.Clone()
	if i := c.Index(id); i >= 0 {
		c.Steps[i].Status = st
	}
	return c
}
