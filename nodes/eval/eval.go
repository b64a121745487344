package eval

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/internal/text"
)

// Case is one question for Run: a goal, its constraints, and a
// check of the final state (nil: success is a complete response).
type Case struct {
	Name        string
	Goal        string
	Constraints []string
	// Check returns nil when the final state is a success, or why not.
	Check func(s nodes.AgentState) error
}

// Result is how the agent did on one case.
type Result struct {
	Name     string        `json:"name"`
	OK       bool          `json:"ok"`
	Error    string        `json:"error,omitempty"` // the run's error or the failed check
	Duration time.Duration `json:"duration_ns"`
	// Steps counts the steps run (outcomes), Replans the plan revisions.
	Steps      int          `json:"steps"`
	Replans    int          `json:"replans"`
	ModelCalls int          `json:"model_calls"`
	ToolCalls  int          `json:"tool_calls"`
	Tokens     nodes.Tokens `json:"tokens"` // where the model reports them
	Stop       string       `json:"stop,omitempty"`
	Answer     string       `json:"answer,omitempty"`
}

// Report sums up an evaluation.
type Report struct {
	Results        []Result      `json:"results"`
	SuccessRate    float64       `json:"success_rate"` // in [0, 1]
	MeanTime       time.Duration `json:"mean_time_ns"`
	MeanSteps      float64       `json:"mean_steps"`
	MeanReplans    float64       `json:"mean_replans"`
	MeanModelCalls float64       `json:"mean_model_calls"`
	MeanToolCalls  float64       `json:"mean_tool_calls"`
	Tokens         nodes.Tokens  `json:"tokens"` // total over the cases
}

// Run runs the compiled agent once per case, one after the other, and
// reports success rate, mean time, steps, replans, model and tool calls, and
// tokens. When the graph has a checkpointer each case runs on its own
// thread ("eval-<n>"), unless opts name one. A run's error is a failed case,
// not an error of Run; only a cancelled ctx stops it early.
func Run(ctx context.Context, app *graph.Compiled[nodes.AgentState], cases []Case, opts ...graph.RunOption) (Report, error) {
	var rep Report
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		callOpts := opts
		if app.Checkpointer() != nil {
			callOpts = append([]graph.RunOption{graph.WithThread(fmt.Sprintf("eval-%d", i))}, opts...)
		}
		start := time.Now()
		s, err := app.Invoke(ctx, nodes.NewInput(c.Goal, c.Constraints...), callOpts...)
		res := Result{
			Name: c.Name, Duration: time.Since(start),
			Steps: len(s.PastSteps), Replans: s.Usage.Replans, ModelCalls: s.Usage.ModelCalls, ToolCalls: s.Usage.ToolCalls,
			Tokens: nodes.Tokens{Prompt: s.Usage.PromptTokens, Completion: s.Usage.CompletionTokens, Total: s.Usage.TotalTokens},
			Answer: s.Answer(),
		}
		if s.Stop != nil {
			res.Stop = s.Stop.Budget
		}
		switch {
		case err != nil:
			res.Error = err.Error()
		case c.Check != nil:
			if cerr := c.Check(s); cerr != nil {
				res.Error = cerr.Error()
			} else {
				res.OK = true
			}
		case !s.Response.Complete:
			res.Error = "the response is not complete"
		default:
			res.OK = true
		}
		rep.add(res)
	}
	rep.finish()
	return rep, nil
}

func (r *Report) add(res Result) {
	r.Results = append(r.Results, res)
	r.Tokens = r.Tokens.Add(res.Tokens)
}

func (r *Report) finish() {
	n := len(r.Results)
	if n == 0 {
		return
	}
	var ok, steps, replans, model, tool int
	var total time.Duration
	for _, res := range r.Results {
		if res.OK {
			ok++
		}
		steps += res.Steps
		replans += res.Replans
		model += res.ModelCalls
		tool += res.ToolCalls
		total += res.Duration
	}
	f := float64(n)
	r.SuccessRate = float64(ok) / f
	r.MeanTime = total / time.Duration(n)
	r.MeanSteps, r.MeanReplans = float64(steps)/f, float64(replans)/f
	r.MeanModelCalls, r.MeanToolCalls = float64(model)/f, float64(tool)/f
}

// String renders the report as a small table, one line per case and a
// summary line.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %-4s %6s %7s %6s %5s %7s  %s\n", "case", "ok", "steps", "replans", "model", "tools", "tokens", "error")
	for _, res := range r.Results {
		ok := "no"
		if res.OK {
			ok = "yes"
		}
		fmt.Fprintf(&b, "%-20s %-4s %6d %7d %6d %5d %7d  %s\n", text.Truncate(res.Name, 20), ok, res.Steps, res.Replans, res.ModelCalls, res.ToolCalls, res.Tokens.Total, text.Truncate(res.Error, 80))
	}
	fmt.Fprintf(&b, "success %.0f%%, mean time %s, mean steps %.1f, replans %.1f, model calls %.1f, tool calls %.1f, tokens %d",
		100*r.SuccessRate, r.MeanTime.Round(time.Microsecond), r.MeanSteps, r.MeanReplans, r.MeanModelCalls, r.MeanToolCalls, r.Tokens.Total)
	return b.String()
}
