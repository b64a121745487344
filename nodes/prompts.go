package nodes

import (
	"encoding/json"
	"slices"
	"strings"
	"text/template"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// ToolInfo is a tool's name and description, as shown to a model, and the
// JSON Schema of its input when it is a tool.SchemaTool (a tool.Typed).
type ToolInfo struct {
	Name        string
	Description string
	Schema      string
	// Input is Schema as the prompts show it: an object of plain fields
	// as {"field": type (description), "optional?": type}, a fraction of
	// the JSON Schema's tokens; any other schema as it is.
	Input string
}

// infos returns name, description and input schema of each tool.
func infos(ts []tools.Tool) []ToolInfo {
	out := make([]ToolInfo, len(ts))
	for i, t := range ts {
		schema := string(inputSchemaOf(t))
		out[i] = ToolInfo{Name: t.Name(), Description: t.Description(), Schema: schema, Input: compactSchema(schema)}
	}
	return out
}

// compactSchema writes a JSON Schema of an object whose properties are
// plain (string, number, integer, boolean, or arrays of those, an enum
// listed) as {"name": type (description), …}, a field not required
// marked with "?"; any other schema, or one it cannot read, is returned as
// it is.
func compactSchema(schema string) string {
	type prop struct {
		Type        string `json:"type"`
		Description string `json:"description"`
		Enum        []any  `json:"enum"`
		Items       *struct {
			Type string `json:"type"`
		} `json:"items"`
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if schema == "" || json.Unmarshal([]byte(schema), &s) != nil || s.Type != "object" || len(s.Properties) == 0 {
		return schema
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	// Required fields first, in the schema's order of required, then the rest by name.
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(s.Required, a), slices.Index(s.Required, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		var p prop
		if json.Unmarshal(s.Properties[n], &p) != nil {
			return schema
		}
		typ := p.Type
		switch typ {
		case "string", "number", "integer", "boolean":
		case "array":
			if p.Items == nil || !slices.Contains([]string{"string", "number", "integer", "boolean"}, p.Items.Type) {
				return schema
			}
			typ = p.Items.Type + "[]"
		default:
			return schema
		}
		if len(p.Enum) > 0 {
			b, _ := json.Marshal(p.Enum)
			typ += " one of " + string(b)
		}
		key, _ := json.Marshal(n)
		if !slices.Contains(s.Required, n) {
			key, _ = json.Marshal(n + "?")
		}
		part := string(key) + ": " + typ
		if p.Description != "" {
			part += " (" + p.Description + ")"
		}
		parts = append(parts, part)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

var promptFuncs = template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err.Error()
		}
		return string(b)
	},
	"indent": func(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") },
}

// PlannerPromptData fills a planner's prompt (LLMPlanner.Prompt).
type PlannerPromptData struct {
	Goal        string
	Constraints []string
	Context     string
	Tools       []ToolInfo
	Schema      string
	Problems    []plan.Problem // from the previous attempt; empty on the first
	Previous    string         // the previous attempt's reply, when it had problems
}

// plannerTemplate is the planner's prompt.
var plannerTemplate = template.Must(template.New("planner").Funcs(promptFuncs).Parse(`You are a planner. Break the goal into a short plan of tool calls.

Goal: {{.Goal}}
{{- if .Constraints}}

Constraints (all must hold; never relax them):
{{- range .Constraints}}
- {{.}}
{{- end}}
{{- end}}
{{- if .Context}}

What is known so far:
{{indent .Context}}
{{- end}}

Tools:
{{- range .Tools}}
- {{.Name}}: {{.Description}}
{{- if .Input}} Input: {{.Input}}{{end}}
{{- end}}

Rules:
1. Each step calls one tool above with its input as JSON.
2. Use an earlier step's result as {{"{{"}}step_id.result{{"}}"}} or {{"{{"}}step_id.result.field{{"}}"}} in a JSON string, and list that step in depends_on.
3. Steps that do not depend on each other run in parallel: do not chain them needlessly.
4. End with a step with tool "" depending on the results the answer needs. When the answer is those results put together, give it the input {"answer": "…"}, the answer written with references to them: it is then the answer as it stands.
5. Reply with JSON only, following this schema:
{{.Schema}}
{{- if .Problems}}

Your previous plan was rejected. Fix every problem:
{{- range .Problems}}
- {{.}}
{{- end}}
{{- if .Previous}}

Previous reply:
{{indent .Previous}}
{{- end}}
{{- end}}
`))

// ReplannerPromptData fills a partial replanner's prompt (PartialReplan.Prompt).
type ReplannerPromptData struct {
	Goal        string
	Constraints []string
	Completed   []plan.Step // kept, with their results and evidence
	Remaining   []plan.Step // to be replaced
	Trigger     Trigger
	Tools       []ToolInfo
	Schema      string
	Problems    []plan.Problem
	Previous    string
}

// replannerTemplate is the partial replanner's prompt: completed work is
// given, the remaining steps are to be replaced.
var replannerTemplate = template.Must(template.New("replanner").Funcs(promptFuncs).Parse(`You are revising a plan that is being executed.

Goal: {{.Goal}}
{{- if .Constraints}}

Constraints (still in force; a revision never relaxes them):
{{- range .Constraints}}
- {{.}}
{{- end}}
{{- end}}

Completed steps (kept; reference their results, do not repeat them):
{{- range .Completed}}
- {{.ID}} [{{.Tool}}] {{.Description}}
  result: {{.Result}}
{{- range .Evidence}}
  evidence: {{.}}
{{- end}}
{{- else}}
(none)
{{- end}}

What happened: step {{.Trigger.StepID}} — {{.Trigger.Summary}}

Remaining steps (to be replaced):
{{- range .Remaining}}
- {{.ID}} [{{.Tool}}] {{.Description}}
{{- else}}
(none)
{{- end}}

Tools:
{{- range .Tools}}
- {{.Name}}: {{.Description}}
{{- if .Input}} Input: {{.Input}}{{end}}
{{- end}}

Write the NEW steps only (not the completed ones), with new ids. They may
depend on completed steps and reference their results as {{"{{"}}step_id.result{{"}}"}}.
End with a step with tool "" that writes the answer; when the answer is the
results put together, give it the input {"answer": "…"} with references to
them. Reply with JSON only:
{{.Schema}}
{{- if .Problems}}

Your previous revision was rejected. Fix every problem:
{{- range .Problems}}
- {{.}}
{{- end}}
{{- end}}
`))

// ResponderPromptData fills a responder's prompt (LLMResponder.Prompt).
type ResponderPromptData struct {
	Goal        string
	Constraints []string
	Outcomes    []StepOutcome
	Steps       []plan.Step
	// Findings are what each step concluded (its last outcome's
	// conclusion, and the reason when it showed the route is blocked), by
	// step id.
	Findings map[string]string
	Stopped  string   // why the run stopped early, "" when it finished
	Missing  []string // steps not done: not run, failed, or skipped after a failure
	Replaced []string // steps that failed and a revision replaced (RespondRequest.Replaced)
}

// responderTemplate is the responder's prompt.
var responderTemplate = template.Must(template.New("responder").Funcs(promptFuncs).Parse(`Answer the user's request from the results below. Cite the evidence for
each claim. Do not invent facts that the results do not show.

Request: {{.Goal}}
{{- if .Constraints}}

Constraints:
{{- range .Constraints}}
- {{.}}
{{- end}}
{{- end}}

Results:
{{- range .Steps}}
- {{.ID}} ({{.Status}}) {{.Description}}
{{- if .Result}}
  result: {{.Result}}
{{- end}}
{{- with index $.Findings .ID}}
  finding: {{.}}
{{- end}}
{{- range .Evidence}}
  evidence: {{.}}
{{- end}}
{{- if .Error}}
  error: {{.Error}}
{{- end}}
{{- end}}
{{- if .Stopped}}

The work stopped early: {{.Stopped}}
Not done:
{{- range .Missing}}
- {{.}}
{{- end}}
Say what was done, what is missing and why.
{{- else if .Missing}}

These steps failed and were skipped:
{{- range .Missing}}
- {{.}}
{{- end}}
Say what is missing and why; do not answer as if they had succeeded.
{{- end}}
{{- if .Replaced}}

These steps failed and other steps were tried instead:
{{- range .Replaced}}
- {{.}}
{{- end}}
Say that they failed.
{{- end}}
`))

func render(t *template.Template, data any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
