package nodes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

// RespondRequest is what the responder answers from.
type RespondRequest struct {
	Plan     plan.Plan     // final plan: goal, constraints, steps with results and evidence
	Outcomes []StepOutcome // every outcome of the run (past steps), in order
	// Stop and Blocked say why the run ended early; both empty when it finished.
	Stop    *StopReason
	Blocked string
	// Audit is the run's audit log (every tool call), for an answer that
	// says what was changed, or that nothing was (see
	// AuditLog.WithSideEffects).
	Audit AuditLog
}

// Early reports whether the run ended before the plan was done, and why.
func (r RespondRequest) Early() (bool, string) {
	switch {
	case r.Stop != nil:
		return true, r.Stop.Error()
	case r.Blocked != "":
		return true, r.Blocked
	case !r.Plan.Done():
		return true, "the plan did not finish"
	}
	return false, ""
}

// Complete reports whether the request is answered in full: the run did not
// end early and every step completed. A plan whose steps were skipped after
// a failure (OnFailureSkip) is done but not complete: the skipped steps are
// Missing.
func (r RespondRequest) Complete() bool {
	if early, _ := r.Early(); early {
		return false
	}
	return len(r.Missing()) == 0
}

// Missing lists the steps not completed — pending, failed, or skipped after
// a failure — with their state and error.
func (r RespondRequest) Missing() []string {
	var out []string
	for _, s := range r.Plan.Steps {
		if s.Status == plan.StatusCompleted {
			continue
		}
		m := fmt.Sprintf("%s: %s (%s)", s.ID, s.Description, cmp.Or(s.Status, plan.StatusPending))
		if s.Error != "" {
			m += ": " + s.Error
		}
		out = append(out, m)
	}
	return out
}

// Replaced lists the failed steps a revision replaced (Plan.Replaced), as
// "id: description (failed): error": the answer says they failed even
// though the plan went another way.
func (r RespondRequest) Replaced() []string {
	var out []string
	for _, s := range r.Plan.Replaced {
		out = append(out, fmt.Sprintf("%s: %s (failed, replaced): %s", s.ID, s.Description, s.Error))
	}
	return out
}

// Response is the final answer.
type Response struct {
	Text       string   `json:"text"`
	Complete   bool     `json:"complete"`          // the plan finished and every step completed (RespondRequest.Complete)
	Missing    []string `json:"missing,omitempty"` // when not complete
	ModelCalls int      `json:"model_calls"`
	Tokens     Tokens   `json:"tokens"`
}

// Responder writes the answer.
type Responder interface {
	Respond(ctx context.Context, req RespondRequest) (Response, error)
}

// TemplateResponder writes the answer without a model: with Format when set
// (a domain answer built from results, written as Format writes it),
// otherwise a generic report of each completed step's conclusion and
// evidence, which says, when the run ended early, what was done, what is
// missing and why, and when steps were skipped lists them as missing, with
// their errors. Either way Response.Complete and Response.Missing say so;
// the agent's respond node adds to the text the stop and each skipped step
// that Format left out.
type TemplateResponder struct {
	Format func(req RespondRequest) (string, error)
}

// Respond implements Responder.
func (t TemplateResponder) Respond(_ context.Context, req RespondRequest) (Response, error) {
	early, why := req.Early()
	resp := Response{Complete: req.Complete()}
	if !resp.Complete {
		resp.Missing = req.Missing()
	}
	if t.Format != nil {
		text, err := t.Format(req)
		if err != nil {
			return resp, err
		}
		resp.Text = text
		return resp, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n", req.Plan.Goal)
	conclusions := map[string]StepOutcome{}
	for _, o := range req.Outcomes {
		conclusions[o.StepID] = o
	}
	b.WriteString("Done:\n")
	for _, s := range req.Plan.Steps {
		if s.Status != plan.StatusCompleted {
			continue
		}
		line := s.Result
		if o, ok := conclusions[s.ID]; ok && o.Conclusion != "" {
			line = o.Conclusion
		}
		fmt.Fprintf(&b, "- %s: %s\n", s.Description, text.Truncate(line, 300))
		for _, e := range s.Evidence {
			fmt.Fprintf(&b, "  evidence: %s\n", e)
		}
	}
	switch {
	case early:
		fmt.Fprintf(&b, "Stopped early: %s\nNot done:\n", why)
	case len(resp.Missing) > 0:
		b.WriteString("Missing (failed, then skipped):\n")
	}
	for _, m := range resp.Missing {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	if rs := req.Replaced(); len(rs) > 0 {
		b.WriteString("Failed, and replaced by other steps:\n")
		for _, m := range rs {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	resp.Text = strings.TrimRight(b.String(), "\n")
	return resp, nil
}

// LLMResponder asks a model to write the answer from the results and
// evidence; when the run ended early, or steps were
// skipped, the prompt lists what is missing and why, and asks the model to
// say so.
//
// A prompt shows at most OutputCap bytes of each tool output (0:
// 8,000 bytes), cut with a marker (CapOutput), and each output once.
type LLMResponder struct {
	Model     llms.Model
	Options   []llms.CallOption
	OutputCap int
	// Prompt, optional, replaces the package's responder prompt; it is
	// executed with a ResponderPromptData.
	Prompt *template.Template
}

// Respond implements Responder.
func (l LLMResponder) Respond(ctx context.Context, req RespondRequest) (Response, error) {
	early, why := req.Early()
	resp := Response{Complete: req.Complete()}
	steps, found := leanSteps(req.Plan.Steps, findings(req.Outcomes))
	steps = capSteps(steps, l.OutputCap)
	for id, f := range found {
		found[id] = CapOutput(f, l.OutputCap)
	}
	data := ResponderPromptData{Goal: req.Plan.Goal, Constraints: req.Plan.Constraints, Outcomes: req.Outcomes, Steps: steps,
		Findings: found, Replaced: req.Replaced()}
	if !resp.Complete {
		resp.Missing = req.Missing()
		data.Missing = capAll(resp.Missing, l.OutputCap)
	}
	data.Replaced = capAll(data.Replaced, l.OutputCap)
	if early {
		data.Stopped = why
	}
	prompt, err := render(cmp.Or(l.Prompt, responderTemplate), data)
	if err != nil {
		return resp, fmt.Errorf("nodes: render prompt: %w", err)
	}
	text, calls, tok, err := generate(ctx, l.Model, prompt, l.Options...)
	resp.ModelCalls, resp.Tokens = calls, tok // a refused call was not made
	if err != nil {
		return resp, fmt.Errorf("responder model call: %w", err)
	}
	resp.Text = strings.TrimSpace(text)
	return resp, nil
}

// leanSteps returns the steps and findings the responder's prompt shows,
// each tool output and each piece of evidence once: a finding that only
// repeats the step's result (or its description) is left out, and so is
// evidence already shown or that only repeats the result
// ("tool(input) → output"); a synthesis step (no tool) shows its own
// evidence and conclusion, not its dependencies' results again.
func leanSteps(steps []plan.Step, found map[string]string) ([]plan.Step, map[string]string) {
	out := make([]plan.Step, len(steps))
	lean := maps.Clone(found)
	seen := map[string]bool{}
	repeats := func(part, whole string) bool {
		part = strings.TrimSpace(strings.TrimSuffix(part, "…"))
		return part != "" && strings.Contains(whole, part)
	}
	var shown []string // the results the prompt shows
	for _, s := range steps {
		if s.Tool != "" || len(s.DependsOn) == 0 {
			shown = append(shown, s.Result)
		}
	}
	for i, s := range steps {
		s = s.Clone()
		if s.Tool == "" && len(s.DependsOn) > 0 {
			s.Result = "" // its dependencies' results, shown with them
		}
		if f, ok := lean[s.ID]; ok && (repeats(f, s.Result) || f == s.Description) {
			delete(lean, s.ID)
		}
		var ev []string
		for _, e := range s.Evidence {
			_, output, call := strings.Cut(e, " → ")
			shownElsewhere := slices.ContainsFunc(shown, func(r string) bool { return repeats(output, r) })
			if seen[e] || (call && (repeats(output, s.Result) || shownElsewhere)) {
				continue
			}
			seen[e] = true
			ev = append(ev, e)
		}
		s.Evidence = ev
		out[i] = s
	}
	return out, lean
}

// findings maps each step to what its last outcome concluded, with the
// reason when it showed the route is blocked.
func findings(outcomes []StepOutcome) map[string]string {
	m := map[string]string{}
	for _, o := range outcomes {
		f := o.Conclusion
		if o.Blocked {
			f = strings.TrimSpace(f + "; the route is blocked: " + o.BlockReason)
			if o.Impact != "" {
				f += " (impact: " + o.Impact + ")"
			}
		}
		if f != "" {
			m[o.StepID] = f
		} else {
			delete(m, o.StepID)
		}
	}
	return m
}

// respond is the respond node. When the model-call budget is spent, or
// the wall-time budget's deadline has passed, a responder other than a
// TemplateResponder is replaced by the generic TemplateResponder, so
// answering never exceeds the budget and makes no call after the
// deadline. A stop or a blocked plan is always named in the answer, and
// so is every step skipped after a failure, as missing with its error,
// whatever the responder wrote (a TemplateResponder's Format, a model).
func (a *Agent) respond(ctx context.Context, s AgentState) (_ state.Update[AgentState], err error) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	start := a.now()
	r := a.cfg.Responder
	if _, tmpl := r.(TemplateResponder); !tmpl && a.cfg.Budget.MaxModelCalls > 0 && s.Usage.ModelCalls >= a.cfg.Budget.MaxModelCalls {
		r = TemplateResponder{}
	}
	req := RespondRequest{Plan: s.Plan, Outcomes: s.PastSteps, Stop: s.Stop, Blocked: s.Blocked, Audit: s.Audit}
	if text, ok := a.planAnswer(req); ok {
		resp := Response{Text: text, Complete: true}
		return state.Writes(fieldResponse.Set(resp), fieldUsage.Set(Usage{Wall: a.now().Sub(start)})), nil
	}
	carried := a.ledger.carried(ctx, NodeRespond, s)
	rctx, al := budgetFor(ctx, a.cfg.Budget, s.Usage, carried)
	defer func() { a.ledger.settle(ctx, NodeRespond, s, carried+al.spent(), err) }()
	rctx = a.withWall(rctx, start, s.Usage)
	if stop := wallSpent(rctx, start); stop != nil {
		// The run's deadline has passed: no model call. The answer is
		// composed from what ran and names what is missing, and why.
		r = TemplateResponder{}
		if req.Stop == nil && !req.Complete() {
			req.Stop = stop
		}
	}
	rctx = streaming(rctx, a.stream, NodeRespond, "")
	resp, err := r.Respond(rctx, req)
	if cerr := ctx.Err(); err != nil && cerr != nil {
		return state.Update[AgentState]{}, failNode(NodeRespond, cerr)
	}
	if err != nil && (errors.Is(err, ErrModelBudget) || isWallStop(err)) {
		// The model's retries needed more calls than the budget had left,
		// or the wall-time budget ran out: answer from the template.
		calls, tok := resp.ModelCalls, resp.Tokens
		resp, err = TemplateResponder{}.Respond(ctx, req)
		resp.ModelCalls, resp.Tokens = calls, tok
	}
	if err != nil {
		return state.Update[AgentState]{}, failNode(NodeRespond, err)
	}
	resp.ModelCalls += carried
	early, why := req.Early()
	if early && !containsFold(resp.Text, why) {
		if resp.Text != "" {
			resp.Text += "\n"
		}
		resp.Text += "Stopped early: " + why + "."
	}
	if !early {
		// Steps skipped after a failure (OnFailureSkip) leave a finished
		// plan incomplete: the answer lists each one the responder left
		// out, with its error.
		var left []string
		for _, m := range req.Missing() {
			if !containsFold(resp.Text, m) {
				left = append(left, "- "+m)
			}
		}
		if len(left) > 0 {
			if resp.Text != "" {
				resp.Text += "\n"
			}
			resp.Text += "Missing (failed, then skipped):\n" + strings.Join(left, "\n")
		}
	}
	// A failed step a revision replaced is named with its error, whatever
	// the responder wrote.
	var gone []string
	for i, m := range req.Replaced() {
		if !containsFold(resp.Text, s.Plan.Replaced[i].Error) {
			gone = append(gone, "- "+m)
		}
	}
	if len(gone) > 0 {
		if resp.Text != "" {
			resp.Text += "\n"
		}
		resp.Text += "Failed, and replaced by other steps:\n" + strings.Join(gone, "\n")
	}
	delta := Usage{ModelCalls: resp.ModelCalls, Wall: a.now().Sub(start)}.AddTokens(resp.Tokens)
	return state.Writes(fieldResponse.Set(resp), fieldUsage.Set(delta)), nil
}

// planAnswer returns the answer the plan's final step wrote (plan.Plan.Answer),
// for the respond node to give without a model call, when the responder is
// an LLMResponder (the default with a Model) and the run is answered in
// full: it finished, every step completed, none failed and was replaced.
// Anything else — a stop, a block, a missing step, a reference that does
// not resolve — is the responder's to explain.
func (a *Agent) planAnswer(req RespondRequest) (string, bool) {
	if _, llm := a.cfg.Responder.(LLMResponder); !llm || !req.Complete() || len(req.Plan.Replaced) > 0 {
		return "", false
	}
	text, ok, err := req.Plan.Answer()
	if err != nil || !ok || strings.TrimSpace(text) == "" {
		return "", false
	}
	return text, true
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
