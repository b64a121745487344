package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/tmc/langchaingo/tools"
)

// ErrInvalid is matched (errors.Is) by every *ValidationError.
var ErrInvalid = errors.New("plan: invalid plan")

// ProblemKind classifies a problem found in a plan.
type ProblemKind string

// The problems Validate reports, and the softer ones ScoreOf adds.
const (
	ProblemEmptyPlan         ProblemKind = "empty_plan"
	ProblemMissingID         ProblemKind = "missing_id"
	ProblemDuplicateID       ProblemKind = "duplicate_id"
	ProblemUnknownTool       ProblemKind = "unknown_tool"
	ProblemMissingDependency ProblemKind = "missing_dependency"
	ProblemSelfReference     ProblemKind = "self_reference"
	ProblemForwardReference  ProblemKind = "forward_reference"
	ProblemUndeclaredRef     ProblemKind = "undeclared_reference"
	ProblemCycle             ProblemKind = "cycle"
	ProblemInvalidInput      ProblemKind = "invalid_input"
	ProblemInvalidStatus     ProblemKind = "invalid_status"
	ProblemParse             ProblemKind = "parse"        // the model's text was not a plan (planner only)
	ProblemIncomplete        ProblemKind = "incomplete"   // soft: see ScoreOf
	ProblemConstraint        ProblemKind = "constraint"   // a guard or invariant refused a revision
	ProblemDroppedWork       ProblemKind = "dropped_work" // a revision lost a completed step or its evidence
)

// Problem is one thing wrong with a plan, naming the step when there is one.
type Problem struct {
	StepID  string      `json:"step_id,omitempty"`
	Kind    ProblemKind `json:"kind"`
	Message string      `json:"message"`
}

// String renders the problem for people and for re-asking a model.
func (p Problem) String() string {
	if p.StepID == "" {
		return p.Message
	}
	return fmt.Sprintf("step %q: %s", p.StepID, p.Message)
}

// ValidationError lists every problem found in a plan.
type ValidationError struct {
	Problems []Problem
}

// Error implements error.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	n := "problem"
	if len(parts) != 1 {
		n = "problems"
	}
	return fmt.Sprintf("plan: invalid plan: %d %s: %s", len(parts), n, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Has reports whether one of the problems is of kind k.
func (e *ValidationError) Has(k ProblemKind) bool {
	return slices.ContainsFunc(e.Problems, func(p Problem) bool { return p.Kind == k })
}

// Validate checks a plan before anything runs and returns a *ValidationError listing
// every problem, or nil. With a nil tools slice tool names are not checked.
//
// Rules: the plan has steps; every step has a unique id; a tool, if named, is
// one of tools (a step without a tool is a synthesis step); depends_on names
// existing steps other than itself; the dependencies form no cycle (the
// cycle is named); the input is valid JSON, and a string input that looks like
// JSON ({…} or […]) must parse. References in the input ({{s.result…}})
// must name another existing step that is among the step's dependencies,
// directly or transitively: a reference to a later step that is not a
// dependency is a forward reference, to an earlier one an undeclared
// reference. A step may list a later step in depends_on as long as the graph
// stays acyclic: plan order is presentation, TopoOrder is execution order.
// A placeholder that looks like a reference but is not one is bad input, with
// the reference to write instead: {{step_1_result}} (the seed documents'
// syntax) is not an alias of {{step_1.result}}, and {{order.warehouse}} is
// not {{order.result.warehouse}}; one syntax, so a typo is never passed to a
// tool as literal text.
func Validate(p Plan, tools []tools.Tool) error {
	if probs := Check(p, tools); len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// Check is Validate returning the problems as a list.
func Check(p Plan, ts []tools.Tool) []Problem {
	var probs []Problem
	add := func(id string, k ProblemKind, format string, args ...any) {
		probs = append(probs, Problem{StepID: id, Kind: k, Message: fmt.Sprintf(format, args...)})
	}
	if len(p.Steps) == 0 {
		add("", ProblemEmptyPlan, "the plan has no steps")
		return probs
	}
	index := map[string]int{}
	for i, s := range p.Steps {
		if strings.TrimSpace(s.ID) == "" {
			add("", ProblemMissingID, "step %d (%q) has no id", i+1, s.Description)
			continue
		}
		if j, dup := index[s.ID]; dup {
			add(s.ID, ProblemDuplicateID, "duplicate id: steps %d and %d share it", j+1, i+1)
			continue
		}
		index[s.ID] = i
	}
	var names []string
	if ts != nil {
		names = ToolNames(ts)
	}
	for i, s := range p.Steps {
		label := s.ID
		if label == "" {
			label = fmt.Sprintf("#%d", i+1)
		}
		if !s.Status.Valid() {
			add(label, ProblemInvalidStatus, "unknown status %q", s.Status)
		}
		if ts != nil && s.Tool != "" && !slices.Contains(names, s.Tool) {
			msg := fmt.Sprintf("unknown tool %q (available: %s)", s.Tool, strings.Join(names, ", "))
			if c := ClosestName(s.Tool, names); c != "" {
				msg += fmt.Sprintf("; did you mean %q?", c)
			}
			add(label, ProblemUnknownTool, "%s", msg)
		}
		for _, d := range s.DependsOn {
			switch _, ok := index[d]; {
			case d == s.ID:
				add(label, ProblemSelfReference, "depends on itself")
			case !ok:
				add(label, ProblemMissingDependency, "depends on %q, which is not in the plan", d)
			}
		}
		if msg := inputProblem(s.Input); msg != "" {
			add(label, ProblemInvalidInput, "%s", msg)
		}
	}
	cycle := findCycle(p, index)
	if cycle != nil {
		add(cycle[0], ProblemCycle, "dependency cycle: %s", strings.Join(cycle, " → "))
	}
	// Placeholders that look like references must be references.
	isStep := func(id string) bool { _, ok := index[id]; return ok }
	for i, s := range p.Steps {
		label := s.ID
		if label == "" {
			label = fmt.Sprintf("#%d", i+1)
		}
		for _, m := range misspelledRefs(string(s.Input), isStep) {
			want := "{{step_id.result}} or {{step_id.result.field}}"
			if m.Want != "" {
				want = m.Want
			}
			add(label, ProblemInvalidInput, "input has %s, which is not a reference and would reach the tool as text; write %s", m.Raw, want)
		}
	}
	// References must point at (transitive) dependencies.
	for i, s := range p.Steps {
		refs := FindRefs(string(s.Input))
		if len(refs) == 0 || s.ID == "" {
			continue
		}
		deps := transitiveDeps(p, index, s.ID)
		seen := map[string]bool{}
		for _, r := range refs {
			if seen[r.Raw] {
				continue
			}
			seen[r.Raw] = true
			j, ok := index[r.StepID]
			switch {
			case r.StepID == s.ID:
				add(s.ID, ProblemSelfReference, "input references its own result %s", r.Raw)
			case !ok:
				add(s.ID, ProblemMissingDependency, "input references %s, but there is no step %q", r.Raw, r.StepID)
			case deps[r.StepID]:
			case j > i:
				add(s.ID, ProblemForwardReference, "input references %s, a later step that is not in depends_on", r.Raw)
			default:
				add(s.ID, ProblemUndeclaredRef, "input references %s, but %q is not in depends_on", r.Raw, r.StepID)
			}
		}
	}
	return probs
}

// inputProblem returns why a step's input is unusable, or "".
func inputProblem(in json.RawMessage) string {
	if len(bytes.TrimSpace(in)) == 0 {
		return ""
	}
	if !json.Valid(in) {
		return fmt.Sprintf("input is not valid JSON: %s", text.Truncate(string(in), 80))
	}
	var s string
	if json.Unmarshal(in, &s) == nil {
		t := strings.TrimSpace(s)
		if (strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "{{")) || strings.HasPrefix(t, "[") {
			var v any
			if err := json.Unmarshal([]byte(t), &v); err != nil {
				return fmt.Sprintf("input is a string that looks like JSON but is not: %v", err)
			}
		}
	}
	return ""
}

func transitiveDeps(p Plan, index map[string]int, id string) map[string]bool {
	out := map[string]bool{}
	var visit func(string)
	visit = func(id string) {
		i, ok := index[id]
		if !ok {
			return
		}
		for _, d := range p.Steps[i].DependsOn {
			if !out[d] {
				out[d] = true
				visit(d)
			}
		}
	}
	visit(id)
	return out
}

// findCycle returns one dependency cycle as ids, first id repeated at the
// end, or nil. Self-dependencies are reported elsewhere and ignored here.
func findCycle(p Plan, index map[string]int) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range p.Steps[index[id]].DependsOn {
			if _, ok := index[d]; !ok || d == id {
				continue
			}
			switch color[d] {
			case grey:
				k := slices.Index(stack, d)
				found = append(slices.Clone(stack[k:]), d)
				return true
			case white:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, s := range p.Steps {
		if i, ok := index[s.ID]; ok && p.Steps[i].ID == s.ID && color[s.ID] == white {
			if visit(s.ID) {
				// Report the cycle in execution direction: a → b means b depends on a.
				slices.Reverse(found)
				return found
			}
		}
	}
	return nil
}

// TopoOrder returns the step ids in an order where every step comes after its
// dependencies; among steps free to go, plan order wins. Unknown and
// self dependencies are ignored; a cycle is a *ValidationError naming it.
func TopoOrder(p Plan) ([]string, error) {
	index := map[string]int{}
	for i, s := range p.Steps {
		if _, dup := index[s.ID]; !dup {
			index[s.ID] = i
		}
	}
	if c := findCycle(p, index); c != nil {
		return nil, &ValidationError{Problems: []Problem{{StepID: c[0], Kind: ProblemCycle, Message: "dependency cycle: " + strings.Join(c, " → ")}}}
	}
	indeg := make([]int, len(p.Steps))
	users := make([][]int, len(p.Steps))
	for i, s := range p.Steps {
		if index[s.ID] != i {
			continue
		}
		for _, d := range slices.Compact(slices.Sorted(slices.Values(s.DependsOn))) {
			j, ok := index[d]
			if !ok || j == i {
				continue
			}
			indeg[i]++
			users[j] = append(users[j], i)
		}
	}
	var ready []int
	for i, s := range p.Steps {
		if index[s.ID] == i && indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	var order []string
	for len(ready) > 0 {
		sort.Ints(ready)
		i := ready[0]
		ready = ready[1:]
		order = append(order, p.Steps[i].ID)
		for _, u := range users[i] {
			indeg[u]--
			if indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	return order, nil
}

// Guard checks a plan against a user constraint and lists the violations.
type Guard func(p Plan) []Problem

// SideEffecter is an optional interface for tools: SideEffects reports
// whether calling the tool changes the world (places an order, writes a file).
type SideEffecter interface {
	SideEffects() bool
}

// ReadOnlyGuard enforces "query only, change nothing": no step that has not
// run yet may use a tool whose SideEffects reports true.
func ReadOnlyGuard(ts []tools.Tool) Guard {
	return func(p Plan) []Problem {
		var probs []Problem
		for _, s := range p.Steps {
			if s.Status == StatusCompleted || s.Status == StatusSkipped {
				continue
			}
			if t, ok := FindTool(ts, s.Tool); ok {
				if se, ok := t.(SideEffecter); ok && se.SideEffects() {
					probs = append(probs, Problem{StepID: s.ID, Kind: ProblemConstraint, Message: fmt.Sprintf("tool %q changes things, but the request is query-only", s.Tool)})
				}
			}
		}
		return probs
	}
}

// ToolNames returns the tools' names, in order.
func ToolNames(ts []tools.Tool) []string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name())
	}
	return names
}

// FindTool returns the tool named name.
func FindTool(ts []tools.Tool, name string) (tools.Tool, bool) {
	for _, t := range ts {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// ClosestName returns the candidate closest to name — equal ignoring case and
// separators, one being a prefix or suffix of the other (4 letters at least),
// or within an edit distance of a third of its length — or "" when none is close.
func ClosestName(name string, candidates []string) string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' || r == '.' {
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	n := norm(name)
	if n == "" {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		cn := norm(c)
		if cn == n {
			return c
		}
		d := editDistance(n, cn)
		if min(len(n), len(cn)) >= 4 && (strings.HasPrefix(cn, n) || strings.HasPrefix(n, cn) || strings.HasSuffix(cn, n) || strings.HasSuffix(n, cn)) {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(1, len([]rune(n))/3) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
