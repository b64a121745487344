package plan

import (
	"encoding/json"
	"fmt"
)

// AnswerKey is the key of a final step's input that holds the answer
// itself: a tool-less last step with the input {"answer": "…"} answers the
// goal with that text once its references are resolved (see Plan.Answer).
// A planner writes one when the answer is the results put together, so no
// model call is needed to write it.
const AnswerKey = "answer"

// Answer returns the answer the plan's final step writes: the step is the
// last one, has no tool, is completed, and its input is an object whose
// AnswerKey is a string, returned with its references resolved against
// the plan's results. ok is false when the plan has no such step; err is
// set when the step has one but it cannot be resolved (a reference to a
// step that did not complete, a missing field).
func (p Plan) Answer() (answer string, ok bool, err error) {
	if len(p.Steps) == 0 {
		return "", false, nil
	}
	last := p.Steps[len(p.Steps)-1]
	if last.Tool != "" || last.Status != StatusCompleted {
		return "", false, nil
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(last.Input, &in) != nil {
		return "", false, nil
	}
	raw, has := in[AnswerKey]
	if !has {
		return "", false, nil
	}
	var tmpl string
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return "", false, fmt.Errorf("plan: step %q: %q must be a string, got %s", last.ID, AnswerKey, kindOf(raw))
	}
	wrapped, err := json.Marshal(tmpl)
	if err != nil {
		return "", false, err
	}
	resolved, err := ResolveInput(last.ID, wrapped, p.Results())
	if err != nil {
		return "", false, err
	}
	var out any
	if err := json.Unmarshal(resolved, &out); err != nil {
		return "", false, fmt.Errorf("plan: step %q: the resolved answer: %w", last.ID, err)
	}
	if s, isStr := out.(string); isStr {
		return s, true, nil
	}
	return string(resolved), true, nil
}
