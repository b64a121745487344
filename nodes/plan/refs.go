package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/nodes/internal/text"
)

// Results maps step ids to steps: what references in an input resolve against.
// Plan.Results builds one.
type Results map[string]Step

// ErrReference is matched (errors.Is) by every *RefError.
var ErrReference = errors.New("plan: unresolvable reference")

// Ref is one reference in a step's input: {{step.result}} or
// {{step.result.field.sub}} (a field of a JSON result; numeric parts index arrays).
type Ref struct {
	Raw    string   // as written, with braces
	StepID string   // the referenced step
	Path   []string // fields below result; empty for the whole result
}

// RefError says which reference could not be resolved and why.
type RefError struct {
	StepID string // the step whose input holds the reference ("" when unknown)
	Ref    string // the reference as written
	Reason string
}

// Error implements error.
func (e *RefError) Error() string {
	if e.StepID == "" {
		return fmt.Sprintf("plan: reference %s: %s", e.Ref, e.Reason)
	}
	return fmt.Sprintf("plan: step %q: reference %s: %s", e.StepID, e.Ref, e.Reason)
}

// Is makes errors.Is(err, ErrReference) true.
func (e *RefError) Is(target error) bool { return target == ErrReference }

var refPattern = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_\-]+)\.result((?:\.[^.{}\s]+)*)\s*\}\}`)

// FindRefs lists the references in a text (typically a step's raw input), in order.
func FindRefs(text string) []Ref {
	ms := refPattern.FindAllStringSubmatch(text, -1)
	refs := make([]Ref, 0, len(ms))
	for _, m := range ms {
		r := Ref{Raw: m[0], StepID: m[1]}
		if m[2] != "" {
			r.Path = strings.Split(m[2][1:], ".")
		}
		refs = append(refs, r)
	}
	return refs
}

// placeholderPattern matches a {{…}} placeholder with no braces or spaces inside.
var placeholderPattern = regexp.MustCompile(`\{\{\s*([^{}\s]+)\s*\}\}`)

// misspelledRef is a placeholder that looks like a reference but is not one,
// with the reference it should be ("" when there is no single guess).
type misspelledRef struct {
	Raw, Want string
}

// misspelledRefs lists the placeholders in text that look like references
// to a step's result but are not references (FindRefs does not see them, so
// ResolveInput would leave them to reach the tool as text): the seed
// documents' {{step_1_result}} and {{step_1_result.path}}, which mean
// {{step_1.result}} and {{step_1.result.path}}, and a step's id without
// "result", {{order.warehouse}} for {{order.result.warehouse}}, or with
// "result" misspelled in case or number, {{order.Result.warehouse}} or
// {{order.results}} for {{order.result.warehouse}} or {{order.result}}. A
// placeholder looks like a reference when its first part (up to a dot)
// names a step (isStep) or ends in "_result"; other placeholders are left
// alone, as text a tool may want.
func misspelledRefs(text string, isStep func(id string) bool) []misspelledRef {
	var out []misspelledRef
	for _, m := range placeholderPattern.FindAllStringSubmatch(text, -1) {
		if refPattern.MatchString(m[0]) {
			continue
		}
		head, rest, _ := strings.Cut(m[1], ".")
		if rest != "" {
			rest = "." + rest
		}
		id, seedStyle := strings.CutSuffix(head, "_result")
		switch {
		case seedStyle && isStep(id):
			out = append(out, misspelledRef{m[0], "{{" + id + ".result" + rest + "}}"})
		case seedStyle:
			out = append(out, misspelledRef{m[0], ""})
		case isStep(head):
			out = append(out, misspelledRef{m[0], "{{" + head + ".result" + dropNearResult(rest) + "}}"})
		}
	}
	return out
}

// dropNearResult returns the path rest (".a.b" or "") without its first
// part when that part is "result" misspelled in case or number ("Result",
// "results"): {{order.Result.warehouse}} means {{order.result.warehouse}},
// not a field "Result" of the result.
func dropNearResult(rest string) string {
	first, after, _ := strings.Cut(strings.TrimPrefix(rest, "."), ".")
	if first == "" || !strings.EqualFold(strings.TrimSuffix(strings.ToLower(first), "s"), "result") {
		return rest
	}
	if after == "" {
		return ""
	}
	return "." + after
}

// ResolveInput substitutes the references in a step's JSON input with the
// results of earlier steps. A JSON string that is exactly one reference is
// replaced by the referenced JSON value (a result that is not JSON becomes a
// string); a reference inside a longer string is replaced by its text. Object
// keys are left alone. Referencing a step that is unknown or not completed, a
// field of a result that is not JSON, or a missing field is a *RefError
// naming stepID and the reference.
func ResolveInput(stepID string, input json.RawMessage, results Results) (json.RawMessage, error) {
	if len(bytes.TrimSpace(input)) == 0 || !bytes.Contains(input, []byte("{{")) {
		return input, nil
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("plan: step %q: input is not valid JSON: %w", stepID, err)
	}
	r := resolver{stepID: stepID, results: results}
	v, err := r.walk(v)
	if err != nil {
		return nil, err
	}
	return text.CompactJSON(v)
}

type resolver struct {
	stepID  string
	results Results
}

func (r resolver) walk(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			nv, err := r.walk(e)
			if err != nil {
				return nil, err
			}
			x[k] = nv
		}
		return x, nil
	case []any:
		for i, e := range x {
			nv, err := r.walk(e)
			if err != nil {
				return nil, err
			}
			x[i] = nv
		}
		return x, nil
	case string:
		return r.str(x)
	}
	return v, nil
}

func (r resolver) str(s string) (any, error) {
	locs := refPattern.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s, nil
	}
	if len(locs) == 1 && strings.TrimSpace(s) == s[locs[0][0]:locs[0][1]] {
		return r.value(FindRefs(s)[0])
	}
	var b strings.Builder
	last := 0
	for _, ref := range FindRefs(s) {
		i := strings.Index(s[last:], ref.Raw) + last
		b.WriteString(s[last:i])
		v, err := r.value(ref)
		if err != nil {
			return nil, err
		}
		if str, ok := v.(string); ok {
			b.WriteString(str)
		} else {
			t, err := text.CompactJSON(v)
			if err != nil {
				return nil, err
			}
			b.Write(t)
		}
		last = i + len(ref.Raw)
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// value returns the JSON value a reference points at.
func (r resolver) value(ref Ref) (any, error) {
	fail := func(format string, args ...any) (any, error) {
		return nil, &RefError{StepID: r.stepID, Ref: ref.Raw, Reason: fmt.Sprintf(format, args...)}
	}
	if ref.StepID == r.stepID {
		return fail("a step cannot reference its own result")
	}
	st, ok := r.results[ref.StepID]
	if !ok {
		return fail("no step %q in the plan", ref.StepID)
	}
	if st.Status != StatusCompleted {
		return fail("step %q is %s, not completed", ref.StepID, st.Status.orPending())
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(st.Result))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		if len(ref.Path) > 0 {
			return fail("the result of step %q is not JSON, so it has no field %q", ref.StepID, strings.Join(ref.Path, "."))
		}
		return st.Result, nil
	}
	for i, part := range ref.Path {
		at := "result"
		if i > 0 {
			at = "result." + strings.Join(ref.Path[:i], ".")
		}
		switch x := v.(type) {
		case map[string]any:
			nv, ok := x[part]
			if !ok {
				return fail("the %s of step %q has no field %q", at, ref.StepID, part)
			}
			v = nv
		case []any:
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 || n >= len(x) {
				return fail("the %s of step %q is an array of %d; %q is not an index in it", at, ref.StepID, len(x), part)
			}
			v = x[n]
		default:
			return fail("the %s of step %q is not an object, so it has no field %q", at, ref.StepID, part)
		}
	}
	return v, nil
}
