package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/invopop/jsonschema"
	"io"
	"strconv"
	"strings"
)

// ErrNotFound is returned (wrapped in a *ParseError) when a text holds no JSON
// that looks like a plan.
var ErrNotFound = errors.New("plan: no JSON plan found")

// Schema is the JSON Schema of the plan a model is asked to write, derived
// from the Go type of a model's plan (github.com/invopop/jsonschema) and
// compact, since every planner and replanner prompt carries it.
var Schema = schemaOf(modelPlan{})

// modelPlan is the plan as a model writes it: Schema is derived from it.
type modelPlan struct {
	Goal  string      `json:"goal,omitempty"`
	Steps []modelStep `json:"steps" jsonschema:"minItems=1"`
}

type modelStep struct {
	ID          string          `json:"id" jsonschema:"description=unique: step_1 …"`
	Description string          `json:"description"`
	Tool        string          `json:"tool" jsonschema:"description=one of the tools; \"\" for the final step"`
	Input       json.RawMessage `json:"input" jsonschema:"description=the tool's input as JSON; a string in it may hold {{step_id.result}} or {{step_id.result.field}}; the final step's may be {\"answer\": \"…\"}"`
	DependsOn   []string        `json:"depends_on"`
}

func schemaOf(v any) string {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true, AllowAdditionalProperties: true}
	s := r.Reflect(v)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic("plan: the plan schema does not marshal: " + err.Error())
	}
	return string(b)
}

// ParseError says why and where a model's text could not be read as a plan.
// Offset is the byte offset in the text given to Parse; Line and Column
// are 1-based (Column counts bytes). For schema errors (valid JSON of the
// wrong shape) Offset is where the offending JSON value starts.
type ParseError struct {
	Offset int
	Line   int
	Column int
	Msg    string
	Err    error
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "plan: parse plan: " + e.Msg
	}
	return fmt.Sprintf("plan: parse plan: line %d, column %d (offset %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

// Unwrap returns the underlying error (a *json.SyntaxError, ErrNotFound, …).
func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads a plan from a model's reply.
//
// Accepted: the JSON alone, inside a ``` or ```json code fence, or with prose
// before and after it; a top-level object {"goal": …, "steps": […]} or a
// top-level array of steps. In a step, id and depends_on entries may be
// strings or integers (1 becomes "1"); "depends_on" may also be spelled
// "dependencies" or "deps", "tool" may be "tool_name", and "input" may be
// "tool_input", "args" or "arguments". Unknown fields are ignored. Status, if
// present, must be a known status. Invalid JSON — a trailing comma, a missing
// quote — is rejected with a *ParseError giving line, column and offset.
func Parse(text string) (Plan, error) {
	// Prefer the first fenced block that holds a plan.
	for _, f := range fences(text) {
		p, found, err := parseFrom(text, f.start, f.end)
		if found {
			return p, err
		}
	}
	p, found, err := parseFrom(text, 0, len(text))
	if found {
		return p, err
	}
	return Plan{}, &ParseError{Msg: "no JSON object with \"steps\" or array of steps in the text", Err: ErrNotFound}
}

type span struct{ start, end int }

// fences returns the content spans of ``` code blocks.
func fences(text string) []span {
	var out []span
	i := 0
	for {
		open := strings.Index(text[i:], "```")
		if open < 0 {
			return out
		}
		open += i
		nl := strings.IndexByte(text[open:], '\n')
		if nl < 0 {
			return out
		}
		start := open + nl + 1
		closeIdx := strings.Index(text[start:], "```")
		if closeIdx < 0 {
			return append(out, span{start, len(text)})
		}
		out = append(out, span{start, start + closeIdx})
		i = start + closeIdx + 3
	}
}

// parseFrom scans text[from:to] for the first JSON value that looks like a
// plan. found is false when nothing plan-like was there.
func parseFrom(text string, from, to int) (Plan, bool, error) {
	const maxCandidates = 64
	i := from
	for tries := 0; i < to && tries < maxCandidates; tries++ {
		j := nextCandidate(text, i, to)
		if j < 0 {
			return Plan{}, false, nil
		}
		dec := json.NewDecoder(strings.NewReader(text[j:to]))
		dec.UseNumber()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Plan{}, true, syntaxError(text, j, to, err)
		}
		end := j + int(dec.InputOffset())
		p, ok, err := decodePlan(text, j, raw)
		if ok {
			return p, true, err
		}
		i = end
	}
	return Plan{}, false, nil
}

// nextCandidate finds the next '{' followed by '"' or '}', or '[' followed by
// '{' or ']', skipping whitespace: the start of something that is JSON rather
// than prose such as "(see [1])" or "{braces}".
func nextCandidate(text string, i, to int) int {
	for ; i < to; i++ {
		c := text[i]
		if c != '{' && c != '[' {
			continue
		}
		k := i + 1
		for k < to && isSpace(text[k]) {
			k++
		}
		if k >= to {
			return i // let the decoder report the truncation
		}
		n := text[k]
		if (c == '{' && (n == '"' || n == '}')) || (c == '[' && (n == '{' || n == ']')) {
			return i
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func syntaxError(text string, start, to int, err error) *ParseError {
	off := to // truncated input: point at the end
	msg := err.Error()
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = max(start+int(se.Offset)-1, start)
		if off < len(text) && (text[off] == ']' || text[off] == '}') {
			k := off - 1
			for k >= start && isSpace(text[k]) {
				k--
			}
			if k >= start && text[k] == ',' {
				msg = fmt.Sprintf("trailing comma before '%c' (JSON does not allow one)", text[off])
				off = k
			}
		}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		msg = "JSON ends early: unclosed object, array or string"
	}
	line, col := lineCol(text, off)
	return &ParseError{Offset: off, Line: line, Column: col, Msg: msg, Err: err}
}

func lineCol(text string, off int) (int, int) {
	if off > len(text) {
		off = len(text)
	}
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndexByte(text[:off], '\n')
	return line, col
}

// decodePlan turns a JSON value into a plan. ok is false when the value is
// not plan-shaped at all (so the scan goes on); a plan-shaped value with a
// bad field gives ok true and an error.
func decodePlan(text string, start int, raw json.RawMessage) (Plan, bool, error) {
	bad := func(format string, args ...any) (Plan, bool, error) {
		line, col := lineCol(text, start)
		return Plan{}, true, &ParseError{Offset: start, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
	}
	var p Plan
	var items []json.RawMessage
	switch raw[0] {
	case '[':
		if err := json.Unmarshal(raw, &items); err != nil {
			return Plan{}, false, nil
		}
		if len(items) > 0 && firstByte(items[0]) != '{' {
			return Plan{}, false, nil
		}
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return Plan{}, false, nil
		}
		steps, ok := obj["steps"]
		if !ok {
			return Plan{}, false, nil
		}
		if firstByte(steps) != '[' {
			return bad("\"steps\" must be an array of step objects, got %s", kindOf(steps))
		}
		if err := json.Unmarshal(steps, &items); err != nil {
			return bad("\"steps\": %v", err)
		}
		if g, ok := obj["goal"]; ok && firstByte(g) != 'n' {
			if err := json.Unmarshal(g, &p.Goal); err != nil {
				return bad("\"goal\" must be a string, got %s", kindOf(g))
			}
		}
		if c, ok := obj["constraints"]; ok && firstByte(c) != 'n' {
			if err := json.Unmarshal(c, &p.Constraints); err != nil {
				return bad("\"constraints\" must be an array of strings, got %s", kindOf(c))
			}
		}
	default:
		return Plan{}, false, nil
	}
	p.Steps = make([]Step, 0, len(items))
	for i, it := range items {
		s, err := decodeStep(it)
		if err != nil {
			return bad("step %d: %v", i+1, err)
		}
		p.Steps = append(p.Steps, s)
	}
	return p, true, nil
}

func firstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func kindOf(v json.RawMessage) string {
	switch firstByte(v) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func decodeStep(raw json.RawMessage) (Step, error) {
	if firstByte(raw) != '{' {
		return Step{}, fmt.Errorf("expected an object, got %s", kindOf(raw))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Step{}, err
	}
	pick := func(names ...string) (string, json.RawMessage) {
		for _, n := range names {
			if v, ok := obj[n]; ok && firstByte(v) != 'n' {
				return n, v
			}
		}
		return "", nil
	}
	var s Step
	var err error
	if n, v := pick("id"); v != nil {
		if s.ID, err = idString(v); err != nil {
			return s, fmt.Errorf("field %q: %w", n, err)
		}
	}
	if n, v := pick("description"); v != nil {
		if err := json.Unmarshal(v, &s.Description); err != nil {
			return s, fmt.Errorf("field %q must be a string, got %s", n, kindOf(v))
		}
	}
	if n, v := pick("tool", "tool_name"); v != nil {
		if err := json.Unmarshal(v, &s.Tool); err != nil {
			return s, fmt.Errorf("field %q must be a string, got %s", n, kindOf(v))
		}
	}
	if _, v := pick("input", "tool_input", "args", "arguments"); v != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return s, err
		}
		s.Input = buf.Bytes()
	}
	if n, v := pick("depends_on", "dependencies", "deps"); v != nil {
		var deps []json.RawMessage
		if firstByte(v) != '[' || json.Unmarshal(v, &deps) != nil {
			return s, fmt.Errorf("field %q must be an array of step ids, got %s", n, kindOf(v))
		}
		for _, d := range deps {
			id, err := idString(d)
			if err != nil {
				return s, fmt.Errorf("field %q: %w", n, err)
			}
			s.DependsOn = append(s.DependsOn, id)
		}
	}
	if n, v := pick("status"); v != nil {
		if err := json.Unmarshal(v, &s.Status); err != nil || !s.Status.Valid() {
			return s, fmt.Errorf("field %q: unknown status %s (want pending, running, completed, failed or skipped)", n, v)
		}
	}
	if _, v := pick("result"); v != nil {
		s.Result = textOf(v)
	}
	if _, v := pick("error"); v != nil {
		s.Error = textOf(v)
	}
	if n, v := pick("evidence"); v != nil {
		if err := json.Unmarshal(v, &s.Evidence); err != nil {
			return s, fmt.Errorf("field %q must be an array of strings, got %s", n, kindOf(v))
		}
	}
	return s, nil
}

// idString accepts a JSON string or integer as a step id.
func idString(v json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("a step id must be a string or an integer, got %s", kindOf(v))
}

// textOf returns a JSON string's contents, or any other value's JSON text.
func textOf(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
