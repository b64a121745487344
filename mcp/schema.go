package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
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

// checkArgs checks a call's arguments against the top level of an input
// schema: a JSON object, with every required property, no property the
// schema does not have when it forbids others (additionalProperties
// false), and each property of its declared type and enum. Deeper rules
// are the server's to check.
func checkArgs(schema map[string]any, input []byte) error {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(input, &args); err != nil || args == nil {
		return fmt.Errorf("want a JSON object, got %s", short(string(input)))
	}
	props, _ := schema["properties"].(map[string]any)
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := args[name]; !has {
					return fmt.Errorf("missing required field %q", name)
				}
			}
		}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p, known := props[k].(map[string]any)
		if !known {
			if extra, ok := schema["additionalProperties"].(bool); ok && !extra {
				return fmt.Errorf("unknown field %q (fields: %s)", k, fieldList(props))
			}
			continue
		}
		if err := checkValue(p, args[k]); err != nil {
			return fmt.Errorf("field %q: %s", k, err)
		}
	}
	return nil
}

// checkValue checks a value against a property's type and enum.
func checkValue(p map[string]any, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
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
		return fmt.Errorf("want %s, got %s", strings.Join(types, " or "), short(string(raw)))
	}
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		for _, e := range enum {
			if eb, err := json.Marshal(e); err == nil {
				if vb, err := json.Marshal(v); err == nil && string(eb) == string(vb) {
					return nil
				}
			}
		}
		return fmt.Errorf("%s is not one of %s", short(string(raw)), short(mustJSON(enum)))
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
