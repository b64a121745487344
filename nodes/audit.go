package nodes

import (
	"encoding/json"
	"time"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// AuditRecord is one tool call: which step made it, with what input, what
// came back, when, and whether it failed.
type AuditRecord struct {
	StepID   string        `json:"step_id"`
	Tool     string        `json:"tool"`
	Attempt  int           `json:"attempt"` // 1 for the first call, 2 for the first retry, …
	Input    string        `json:"input"`
	Output   string        `json:"output,omitempty"`
	Start    time.Time     `json:"start"`
	End      time.Time     `json:"end"`
	Duration time.Duration `json:"duration_ns"`
	Status   string        `json:"status"` // AuditOK or AuditError
	Error    string        `json:"error,omitempty"`
}

// Values of AuditRecord.Status.
const (
	AuditOK    = "ok"
	AuditError = "error"
)

// AuditLog is the audit trail of a run, in call order. It is a plain slice so
// it can live in graph state under an append reducer.
type AuditLog []AuditRecord

// JSON exports the log as indented JSON (an empty log is "[]").
func (l AuditLog) JSON() ([]byte, error) {
	if l == nil {
		l = AuditLog{}
	}
	return json.MarshalIndent(l, "", "  ")
}

// ForStep returns the records of one step.
func (l AuditLog) ForStep(id string) AuditLog {
	var out AuditLog
	for _, r := range l {
		if r.StepID == id {
			out = append(out, r)
		}
	}
	return out
}

// Errors returns the records of failed calls.
func (l AuditLog) Errors() AuditLog {
	var out AuditLog
	for _, r := range l {
		if r.Status == AuditError {
			out = append(out, r)
		}
	}
	return out
}

// WithSideEffects returns the records of calls to tools of ts whose
// SideEffects reports true, failed calls included (a call that failed may
// still have changed something). An empty result is what lets an answer
// say that nothing was changed.
func (l AuditLog) WithSideEffects(ts []tools.Tool) AuditLog {
	var out AuditLog
	for _, r := range l {
		if t, ok := plan.FindTool(ts, r.Tool); ok {
			if se, ok := t.(plan.SideEffecter); ok && se.SideEffects() {
				out = append(out, r)
			}
		}
	}
	return out
}
