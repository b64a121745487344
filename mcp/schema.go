package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// schemaOf returns a tool's input schema as a JSON object.
func schemaOf(d *sdk.Tool) map[string]any {
	var m map[string]any
	if raw, err := json.Marshal(d.InputSchema); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// checkArgs checks a call's arguments against an input schema: a JSON
// object, and at every level of it (objects' properties, arrays' items)
// every required property, no property the schema does not have when it
// forbids others (additionalProperties false), and each value of its
// declared type and enum. Rules beyond these ($ref, patterns, bounds,
// combinators) are the server's to check.
func checkArgs(schema map[string]any, input []byte) error {
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil || args == nil {
		return fmt.Errorf("want a JSON object, got %s", short(string(input)))
	}
	return checkObject(schema, args, "")
}

// checkObject checks the object at path (its fields named path.field)
// against an object schema.
func checkObject(schema map[string]any, obj map[string]any, path string) error {
	props, _ := schema["properties"].(map[string]any)
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := obj[name]; !has {
					return fmt.Errorf("missing required field %q", path+name)
				}
			}
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p, known := props[k].(map[string]any)
		if !known {
			if extra, ok := schema["additionalProperties"].(bool); ok && !extra {
				return fmt.Errorf("unknown field %q (fields: %s)", path+k, fieldList(props))
			}
			if extra, ok := schema["additionalProperties"].(map[string]any); ok {
				p = extra
			} else {
				continue
			}
		}
		if err := checkValue(p, obj[k], path+k); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks the value at path against a schema's type and enum,
// then an object's fields and an array's items against theirs.
func checkValue(p map[string]any, v any, path string) error {
	var types []string
	switch t := p["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		return fmt.Errorf("field %q: want %s, got %s", path, strings.Join(types, " or "), short(mustJSON(v)))
	}
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		vb := mustJSON(v)
		if !slices.ContainsFunc(enum, func(e any) bool { return mustJSON(e) == vb }) {
			return fmt.Errorf("field %q: %s is not one of %s", path, short(vb), short(mustJSON(enum)))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		return checkObject(p, v, path+".")
	case []any:
		items, ok := p["items"].(map[string]any)
		if !ok {
			return nil
		}
		for i, item := range v {
			if err := checkValue(items, item, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

func isType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	}
	return true // a type this check does not know: the server's to judge
}

func fieldList(props map[string]any) string {
	if len(props) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func short(s string) string {
	if s == "" {
		return "nothing"
	}
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// InputGuard is a plan.Guard (for nodes.AgentConfig.Guards) that checks,
// for each step yet to run whose tool is an MCP tool of ts (or wraps one,
// as telemetry.Tool does), that its input
// is one the tool's schema accepts (Tool.CheckInput). An input with
// references to earlier results ({{step.result}}) is checked when the
// step runs, once they are resolved. A refused plan is a problem of kind
// plan.ProblemInvalidInput naming the step, the tool and the field, which
// the planner puts to the model when it asks again.
func InputGuard(ts []tools.Tool) plan.Guard {
	return func(p plan.Plan) []plan.Problem {
		var probs []plan.Problem
		for _, s := range p.Steps {
			if s.Status == plan.StatusCompleted || s.Status == plan.StatusSkipped || s.Tool == "" {
				continue
			}
			found, ok := plan.FindTool(ts, s.Tool)
			if !ok {
				continue
			}
			t, ok := mcpTool(found)
			if !ok || len(plan.FindRefs(string(s.Input))) > 0 {
				continue
			}
			if err := t.CheckInput(stepInput(s.Input)); err != nil {
				probs = append(probs, plan.Problem{StepID: s.ID, Kind: plan.ProblemInvalidInput, Message: err.Error()})
			}
		}
		return probs
	}
}

// mcpTool finds the *Tool in t, through wrappers with an Unwrap method
// (telemetry.Tool's).
func mcpTool(t tools.Tool) (*Tool, bool) {
	for range 8 {
		switch w := t.(type) {
		case *Tool:
			return w, true
		case interface{ Unwrap() tools.Tool }:
			t = w.Unwrap()
		default:
			return nil, false
		}
	}
	return nil, false
}

// stepInput is what a step's input becomes as a tool's input: a JSON
// string's text, anything else as it is.
func stepInput(in json.RawMessage) string {
	var s string
	if json.Unmarshal(in, &s) == nil {
		return s
	}
	return string(in)
}
