package nodes

import (
	"encoding/json"
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
}

// Infos returns name, description and input schema of each tool.
func Infos(ts []tools.Tool) []ToolInfo {
	out := make([]ToolInfo, len(ts))
	for i, t := range ts {
		out[i] = ToolInfo{Name: t.Name(), Description: t.Description(), Schema: string(inputSchemaOf(t))}
	}
	return out
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

// PlannerPromptData fills PlannerTemplate.
type PlannerPromptData struct {
	Goal        string
	Constraints []string
	Context     string
	Tools       []ToolInfo
	Schema      string
	Problems    []plan.Problem // from the previous attempt; empty on the first
	Previous    string         // the previous attempt's reply, when it had problems
}

// PlannerTemplate is the planner's prompt.
var PlannerTemplate = template.Must(template.New("planner").Funcs(promptFuncs).Parse(`You are a planner. Break the goal into a short plan of tool calls.

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
{{- if .Schema}}
  input (JSON Schema): {{.Schema}}
{{- end}}
{{- end}}

Rules:
1. Each step calls exactly one of the tools above, with its input as JSON.
2. Use the result of an earlier step as {{"{{"}}step_id.result{{"}}"}} or {{"{{"}}step_id.result.field{{"}}"}} inside a JSON string, and list that step in depends_on.
3. Steps that do not depend on each other may run in parallel: do not chain them needlessly.
4. End with a step with tool "" that writes the answer from the results.
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

// ReplannerPromptData fills ReplannerTemplate.
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

// ReplannerTemplate is the partial replanner's prompt: completed work is
// given, the remaining steps are to be replaced.
var ReplannerTemplate = template.Must(template.New("replanner").Funcs(promptFuncs).Parse(`You are revising a plan that is being executed.

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
{{- if .Schema}}
  input (JSON Schema): {{.Schema}}
{{- end}}
{{- end}}

Write the NEW steps only (not the completed ones), with new ids. They may
depend on completed steps and reference their results as {{"{{"}}step_id.result{{"}}"}}.
End with a step with tool "" that writes the answer. Reply with JSON only:
{{.Schema}}
{{- if .Problems}}

Your previous revision was rejected. Fix every problem:
{{- range .Problems}}
- {{.}}
{{- end}}
{{- end}}
`))

// ResponderPromptData fills ResponderTemplate.
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

// ResponderTemplate is the responder's prompt.
var ResponderTemplate = template.Must(template.New("responder").Funcs(promptFuncs).Parse(`Answer the user's request from the results below. Cite the evidence for
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
