// Package tool makes langchaingo tools (tools.Tool) for the agent of
// package nodes from Go functions.
//
// Func adapts a function of a string. New makes a Typed tool of a function
// taking a struct: the tool's input is a JSON object whose JSON Schema is
// derived from the struct type (github.com/invopop/jsonschema: json tags
// name the fields, a field without omitempty is required, a jsonschema tag
// describes one), and each call's input is checked against it before the
// function runs, a bad input failing with an error that matches
// plan.ErrBadInput and names the field. A tool with a schema is a
// SchemaTool: the agent's planner shows the schema in its prompt and a
// ReAct step offers it to the model as the tool's parameters.
//
// A tool that changes the world says so (Mutates), so that guards such as
// plan.ReadOnlyGuard can refuse it.
package tool
