package nodes

import (
	"fmt"
	"time"

	"github.com/stategraph/stategraph/internal/usage"

	"github.com/tmc/langchaingo/llms"
)

// Budget bounds a run. A zero limit means no limit, except
// MaxRoundsWithoutProgress, where zero means 2
// and a negative value means no limit. Every stop names its budget
// (StopReason). This is the one statement of the budget rules; the agent's
// nodes, executors and docs refer to it.
//
// MaxToolCalls and MaxModelCalls are hard limits, within a round (one
// execute superstep, its steps in parallel) too. A round starts, in plan
// order, no more of the steps that call tools (a step naming a tool, or a
// ReAct step) than there are tool calls left, and no more ReAct steps (the
// only steps that call the model) than there are model calls left; the
// others wait for a later round. Each step it starts makes at most its share
// of what is left: the calls left split evenly among the round's steps that
// spend them, the first in plan order taking one more when the split is
// uneven, so the shares add up to what is left however the steps retry (and
// at most MaxToolCallsPerStep tool calls, or ReActExecutor.MaxModelCalls
// model calls). The planner and replan nodes give their strategies only the
// model calls left: a call refused so (ErrModelBudget) is not made and not
// counted. A spent MaxToolCalls or MaxModelCalls stops the run only when
// the work left needs it: a tool-less synthesis step still runs
// when the tool calls are spent, and a TemplateResponder still answers when
// the model calls are.
//
// MaxWall bounds the running time (Usage.Wall): the time the agent's nodes
// ran, not the time a thread sat interrupted between a run and its resume.
// It is checked before every tool call and ReAct model call, retries
// included, not only between rounds, and a model or tool call still
// running at the deadline is cancelled, failing with the stop that names
// it.
//
// Every attempt of a model call counts against MaxModelCalls: the retries
// of a ResilientModel, and the calls of a node attempt that failed and was
// retried by the graph (graph.WithRetry).
//
// MaxRoundsWithoutProgress counts rounds that made no progress in a row:
// progress is a step completed or skipped, or new evidence; a step that
// repeats finished work (same tool, resolved input and evidence) or finds
// evidence already on the plan moves nothing. A round that only redid
// finished work (each of its steps completed by repeating a finished step,
// none failed and none showed the route blocked) is neither progress nor a round without
// progress: the agent leaves the streak as it was. A revision may ask for
// such work — FullReplan's new steps may not depend on the kept ones, so
// they redo the kept lookups before they reach new work — and is not
// stopped for it. A loop of revisions is still stopped: each revision
// follows a round in which a step failed or showed the route blocked, and
// such a round counts when it found nothing new.
type Budget struct {
	MaxModelCalls            int           `json:"max_model_calls,omitempty"`
	MaxToolCalls             int           `json:"max_tool_calls,omitempty"`
	MaxToolCallsPerStep      int           `json:"max_tool_calls_per_step,omitempty"`
	MaxReplans               int           `json:"max_replans,omitempty"`
	MaxWall                  time.Duration `json:"max_wall,omitempty"`
	MaxRoundsWithoutProgress int           `json:"max_rounds_without_progress,omitempty"`
}

// defaultRoundsWithoutProgress is the stop after rounds that made no progress
// when Budget.MaxRoundsWithoutProgress is zero.
const defaultRoundsWithoutProgress = 2

// Names of the budgets, as StopReason.Budget.
const (
	BudgetModelCalls            = "max_model_calls"
	BudgetToolCalls             = "max_tool_calls"
	BudgetToolCallsPerStep      = "max_tool_calls_per_step"
	BudgetReplans               = "max_replans"
	BudgetWall                  = "max_wall"
	BudgetRoundsWithoutProgress = "max_rounds_without_progress"
)

// Usage is what a run has spent. It is a plain value for graph state; Add
// merges the deltas of parallel tasks.
type Usage struct {
	// Wall is the running time spent so far: the time the agent's nodes
	// ran, an execute round counted once however many steps it ran in
	// parallel. The time a thread sits interrupted (waiting for an approval
	// between a run and its resume, say) is not in it.
	Wall time.Duration `json:"wall_ns,omitempty"`
	// Start is when the clock last started, while it runs: the running time
	// not yet in Wall is now − Start (see Budget.Check). A node starts the
	// clock when it begins and adds what it measured to Wall when it ends,
	// so the agent's checkpointed state has Start zero: a paused thread's
	// clock is stopped.
	Start                 time.Time `json:"start,omitzero"`
	ModelCalls            int       `json:"model_calls"`
	ToolCalls             int       `json:"tool_calls"`
	Replans               int       `json:"replans"`
	Rounds                int       `json:"rounds"`
	RoundsWithoutProgress int       `json:"rounds_without_progress"`
	PromptTokens          int       `json:"prompt_tokens,omitempty"`
	CompletionTokens      int       `json:"completion_tokens,omitempty"`
	TotalTokens           int       `json:"total_tokens,omitempty"`
}

// Add returns u plus d: counters and Wall summed, the earlier non-zero
// Start kept. RoundsWithoutProgress is a streak, not a sum: d's value wins
// when d counted a round.
func (u Usage) Add(d Usage) Usage {
	if u.Start.IsZero() || (!d.Start.IsZero() && d.Start.Before(u.Start)) {
		u.Start = d.Start
	}
	u.Wall += d.Wall
	u.ModelCalls += d.ModelCalls
	u.ToolCalls += d.ToolCalls
	u.Replans += d.Replans
	if d.Rounds > 0 {
		u.RoundsWithoutProgress = d.RoundsWithoutProgress
	}
	u.Rounds += d.Rounds
	u.PromptTokens += d.PromptTokens
	u.CompletionTokens += d.CompletionTokens
	u.TotalTokens += d.TotalTokens
	return u
}

// AddTokens adds a model call's token counts.
func (u Usage) AddTokens(t Tokens) Usage {
	u.PromptTokens += t.Prompt
	u.CompletionTokens += t.Completion
	u.TotalTokens += t.Total
	return u
}

// RunningTime is the running time at now: Wall, plus now − Start while the
// clock runs (Start set).
func (u Usage) RunningTime(now time.Time) time.Duration {
	if u.Start.IsZero() {
		return u.Wall
	}
	return u.Wall + now.Sub(u.Start)
}

// EndRound counts a finished round; progressed resets the no-progress streak.
func (u Usage) EndRound(progressed bool) Usage {
	u.Rounds++
	if progressed {
		u.RoundsWithoutProgress = 0
	} else {
		u.RoundsWithoutProgress++
	}
	return u
}

// Tokens are a model call's token counts, where the provider reports them.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Total      int `json:"total"`
}

// Add returns t + u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Prompt + u.Prompt, t.Completion + u.Completion, t.Total + u.Total}
}

// tokensOf reads token counts from langchaingo's GenerationInfo
// (PromptTokens/CompletionTokens/TotalTokens as OpenAI reports them,
// InputTokens/OutputTokens as Anthropic does), summed over choices.
func tokensOf(resp *llms.ContentResponse) Tokens {
	p, c, t := usage.Of(resp)
	return Tokens{p, c, t}
}

// StopReason says which budget ended a run, with its limit and what was used.
type StopReason struct {
	Budget string `json:"budget"`
	Limit  string `json:"limit"`
	Used   string `json:"used"`
}

// Error makes a StopReason usable as an error.
func (r *StopReason) Error() string {
	return fmt.Sprintf("nodes: stopped by budget %s: used %s of %s", r.Budget, r.Used, r.Limit)
}

// String is Error.
func (r *StopReason) String() string { return r.Error() }

// Check returns why the run must stop before spending more, or nil. A
// counter stops the run once it has reached its limit (no more calls are
// allowed); replans stop it only when over the limit, since the replan node
// refuses a replan that would exceed it. Wall time is u.RunningTime(now).
// MaxToolCallsPerStep is not checked here: the Executor enforces it per step.
// Check assumes the work left needs both tool calls and model calls; the
// replan node checks the counters only against what the work left needs.
func (b Budget) Check(u Usage, now time.Time) *StopReason {
	return b.check(u, now, callNeeds{ToolCalls: true, ModelCalls: true})
}

// callNeeds says which calls the work left in a run needs: tool calls, model
// calls. A spent counter of a budget the work left does not need does not
// stop the run.
type callNeeds struct {
	ToolCalls  bool
	ModelCalls bool
}

// check is Check with MaxToolCalls and MaxModelCalls checked only when need
// says the work left needs them.
func (b Budget) check(u Usage, now time.Time, need callNeeds) *StopReason {
	itoa := func(n int) string { return fmt.Sprint(n) }
	switch {
	case b.MaxWall > 0 && u.RunningTime(now) >= b.MaxWall:
		return &StopReason{Budget: BudgetWall, Limit: b.MaxWall.String(), Used: u.RunningTime(now).Round(time.Millisecond).String()}
	case need.ModelCalls && b.MaxModelCalls > 0 && u.ModelCalls >= b.MaxModelCalls:
		return &StopReason{Budget: BudgetModelCalls, Limit: itoa(b.MaxModelCalls), Used: itoa(u.ModelCalls)}
	case need.ToolCalls && b.MaxToolCalls > 0 && u.ToolCalls >= b.MaxToolCalls:
		return &StopReason{Budget: BudgetToolCalls, Limit: itoa(b.MaxToolCalls), Used: itoa(u.ToolCalls)}
	case b.MaxReplans > 0 && u.Replans > b.MaxReplans:
		return &StopReason{Budget: BudgetReplans, Limit: itoa(b.MaxReplans), Used: itoa(u.Replans)}
	}
	if n := b.roundsWithoutProgress(); n > 0 && u.RoundsWithoutProgress >= n {
		return &StopReason{Budget: BudgetRoundsWithoutProgress, Limit: itoa(n), Used: itoa(u.RoundsWithoutProgress)}
	}
	return nil
}

// CanReplan returns a stop reason when one more replan would exceed MaxReplans.
func (b Budget) CanReplan(u Usage) *StopReason {
	if b.MaxReplans > 0 && u.Replans >= b.MaxReplans {
		return &StopReason{Budget: BudgetReplans, Limit: fmt.Sprint(b.MaxReplans), Used: fmt.Sprint(u.Replans)}
	}
	return nil
}

func (b Budget) roundsWithoutProgress() int {
	switch {
	case b.MaxRoundsWithoutProgress == 0:
		return defaultRoundsWithoutProgress
	case b.MaxRoundsWithoutProgress < 0:
		return 0
	}
	return b.MaxRoundsWithoutProgress
}
