package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// SchemaTool is a tool that says what its input is: a JSON Schema of the
// JSON object it takes. The agent's planner and replanner prompts show it
// under the tool's description, and a ReAct step offers it to the model as
// the tool's parameters (instead of one free-text "input").
type SchemaTool interface {
	tools.Tool
	InputSchema() json.RawMessage
}

// Typed is a tool whose input is a Go struct A: its JSON Schema is
// derived from A (github.com/invopop/jsonschema: the json tags name the
// fields, a field without omitempty is required, a jsonschema tag such as
// `jsonschema:"description=the city,enum=A,enum=B"` describes it), and each
// call's input is checked against it before Fn runs — an input that is not
// an object, lacks a required field, has an unknown field or a value of the
// wrong type fails the call with an error matching plan.ErrBadInput that
// names the field (`bad input: missing required field "date"`). Make one with
// New.
type Typed[A any] struct {
	ToolName        string
	ToolDescription string
	Fn              func(ctx context.Context, args A) (string, error)
	// Mutates marks a tool that changes the world (see plan.ReadOnlyGuard).
	Mutates bool

	schema *jsonschema.Schema
	raw    json.RawMessage
}

var (
	_ SchemaTool        = (*Typed[struct{}])(nil)
	_ plan.SideEffecter = (*Typed[struct{}])(nil)
)

// New returns the Typed tool named name calling fn with its input decoded
// into an A, which must be a struct type.
func New[A any](name, description string, fn func(ctx context.Context, args A) (string, error)) *Typed[A] {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	var zero A
	s := r.Reflect(&zero)
	s.Version = ""
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool: New %q: the schema of %T does not marshal: %v", name, zero, err))
	}
	return &Typed[A]{ToolName: name, ToolDescription: description, Fn: fn, schema: s, raw: raw}
}

// Name implements tools.Tool.
func (t *Typed[A]) Name() string { return t.ToolName }

// Description implements tools.Tool.
func (t *Typed[A]) Description() string { return t.ToolDescription }

// InputSchema implements SchemaTool: the JSON Schema derived from A.
func (t *Typed[A]) InputSchema() json.RawMessage { return t.raw }

// SideEffects implements plan.SideEffecter.
func (t *Typed[A]) SideEffects() bool { return t.Mutates }

// Call implements tools.Tool: it decodes and checks input (Decode), then
// calls Fn.
func (t *Typed[A]) Call(ctx context.Context, input string) (string, error) {
	args, err := t.Decode(input)
	if err != nil {
		return "", err
	}
	return t.Fn(ctx, args)
}

// Decode checks input against the tool's schema and decodes it into an A.
// The error matches plan.ErrBadInput and names the field at fault.
func (t *Typed[A]) Decode(input string) (A, error) {
	var args A
	bad := func(format string, a ...any) (A, error) {
		return args, fmt.Errorf("%w: %s", plan.ErrBadInput, fmt.Sprintf(format, a...))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(input), &fields); err != nil || fields == nil {
		return bad("want a JSON object with fields %s, got %s", fieldList(t.schema), truncateInput(input))
	}
	for _, f := range t.schema.Required {
		if _, ok := fields[f]; !ok {
			return bad("missing required field %q", f)
		}
	}
	if t.schema.Properties != nil {
		for k := range fields {
			if _, ok := t.schema.Properties.Get(k); !ok {
				return bad("unknown field %q (fields: %s)", k, fieldList(t.schema))
			}
		}
	}
	if err := json.Unmarshal([]byte(input), &args); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return bad("field %q: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return bad("%v", err)
	}
	return args, nil
}

func fieldList(s *jsonschema.Schema) string {
	var names []string
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			names = append(names, p.Key)
		}
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func truncateInput(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	if s == "" {
		return "nothing"
	}
	return s
}
