package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The agent scenario: five multi-step tasks over six tools with modelled
// latencies, answered by a scripted model, once by the plan-and-execute
// agent and once by a ReAct loop (nodes.ReActExecutor over the whole task)
// on the same model and tools. The model is scripted but reads its
// prompt: its answer states the facts it finds in the tool outputs its
// prompt shows, so an answer is right only when the prompt carried every
// result. Tokens are counted the same way for every call of either: a
// fixed rule of one token per four characters (rounded up) of everything
// sent (messages, tool calls and results, tool definitions) and received.

// scenarioStep is one tool call of a task: the step the planner writes
// (input may reference earlier results), the arguments the tool receives
// (references resolved, as json.Marshal writes the tool's argument struct),
// its output and its latency.
type scenarioStep struct {
	id, tool, desc string
	input, args    string
	deps           []string
	out            string
	latency        time.Duration
}

type scenarioTask struct {
	name  string // the marker in the goal: "TASK-T1"
	goal  string
	steps []scenarioStep // in an order a sequential ReAct loop can call them
	facts []string       // what a right answer states
}

func (t scenarioTask) goalText() string { return t.name + ": " + t.goal }

// criticalPath is the longest chain of tool latencies through the plan.
func (t scenarioTask) criticalPath() time.Duration {
	return t.longestChain(func(s scenarioStep) time.Duration { return s.latency })
}

// longestChain is the longest chain through the plan of the steps'
// durations d.
func (t scenarioTask) longestChain(d func(scenarioStep) time.Duration) time.Duration {
	end := map[string]time.Duration{}
	var longest time.Duration
	for _, s := range t.steps {
		var start time.Duration
		for _, dep := range s.deps {
			start = max(start, end[dep])
		}
		end[s.id] = start + d(s)
		longest = max(longest, end[s.id])
	}
	return longest
}

// measuredCriticalPath is the longest chain through the plan of the tool
// calls' durations as they were measured (the audit's), which a loaded
// machine makes longer than the modelled latencies.
func (t scenarioTask) measuredCriticalPath(audit nodes.AuditLog) time.Duration {
	return t.longestChain(func(s scenarioStep) time.Duration {
		var d time.Duration
		for _, r := range audit.ForStep(s.id) {
			d += r.Duration
		}
		return d
	})
}

func fact(f string, fields string) string {
	if fields == "" {
		return fmt.Sprintf(`{"fact":%q}`, f)
	}
	return fmt.Sprintf(`{%s,"fact":%q}`, fields, f)
}

const ms = time.Millisecond

var scenarioTasks = []scenarioTask{{
	name: "TASK-T1", goal: "What does order O7 cost in EUR, and which warehouse can ship it?",
	steps: []scenarioStep{
		{id: "order", tool: "order_lookup", desc: "Look up order O7", input: `{"order":"O7"}`, args: `{"order":"O7"}`,
			out: fact("O7 is 2 x SKU-7 from warehouse A", `"sku":"SKU-7","qty":2,"warehouse":"A","city":"Lyon"`), latency: 20 * ms},
		{id: "fx", tool: "fx", desc: "Get the USD to EUR rate", input: `{"from":"USD","to":"EUR"}`, args: `{"from":"USD","to":"EUR"}`,
			out: fact("1 USD = 0.92 EUR", `"rate":0.92`), latency: 80 * ms},
		{id: "price", tool: "price", desc: "Price the order's item", input: `{"sku":"{{order.result.sku}}"}`, args: `{"sku":"SKU-7"}`, deps: []string{"order"},
			out: fact("SKU-7 costs 40 USD", `"usd":40`), latency: 60 * ms},
		{id: "stock_a", tool: "stock", desc: "Check stock at the order's warehouse", input: `{"sku":"{{order.result.sku}}","warehouse":"{{order.result.warehouse}}"}`, args: `{"sku":"SKU-7","warehouse":"A"}`, deps: []string{"order"},
			out: fact("A has 0 of SKU-7", `"units":0`), latency: 40 * ms},
		{id: "stock_b", tool: "stock", desc: "Check stock at warehouse B", input: `{"sku":"{{order.result.sku}}","warehouse":"B"}`, args: `{"sku":"SKU-7","warehouse":"B"}`, deps: []string{"order"},
			out: fact("B has 5 of SKU-7", `"units":5`), latency: 10 * ms},
	},
	facts: []string{"O7 is 2 x SKU-7 from warehouse A", "1 USD = 0.92 EUR", "SKU-7 costs 40 USD", "A has 0 of SKU-7", "B has 5 of SKU-7"},
}, {
	name: "TASK-T2", goal: "From Lyon, how far are Rome, Oslo and Paris, and what is the weather in each?",
	steps: []scenarioStep{
		{id: "d_rome", tool: "distance", desc: "Distance from Lyon to Rome", input: `{"from":"Lyon","to":"Rome"}`, args: `{"from":"Lyon","to":"Rome"}`,
			out: fact("Lyon to Rome is 750 km", `"to":"Rome","km":750`), latency: 10 * ms},
		{id: "d_oslo", tool: "distance", desc: "Distance from Lyon to Oslo", input: `{"from":"Lyon","to":"Oslo"}`, args: `{"from":"Lyon","to":"Oslo"}`,
			out: fact("Lyon to Oslo is 1650 km", `"to":"Oslo","km":1650`), latency: 60 * ms},
		{id: "d_paris", tool: "distance", desc: "Distance from Lyon to Paris", input: `{"from":"Lyon","to":"Paris"}`, args: `{"from":"Lyon","to":"Paris"}`,
			out: fact("Lyon to Paris is 460 km", `"to":"Paris","km":460`), latency: 20 * ms},
		{id: "w_rome", tool: "weather", desc: "Weather in Rome", input: `{"city":"{{d_rome.result.to}}"}`, args: `{"city":"Rome"}`, deps: []string{"d_rome"},
			out: fact("Rome: sunny, 24C", ""), latency: 40 * ms},
		{id: "w_oslo", tool: "weather", desc: "Weather in Oslo", input: `{"city":"{{d_oslo.result.to}}"}`, args: `{"city":"Oslo"}`, deps: []string{"d_oslo"},
			out: fact("Oslo: rain, 9C", ""), latency: 10 * ms},
		{id: "w_paris", tool: "weather", desc: "Weather in Paris", input: `{"city":"{{d_paris.result.to}}"}`, args: `{"city":"Paris"}`, deps: []string{"d_paris"},
			out: fact("Paris: cloudy, 17C", ""), latency: 20 * ms},
	},
	facts: []string{"Lyon to Rome is 750 km", "Lyon to Oslo is 1650 km", "Lyon to Paris is 460 km", "Rome: sunny, 24C", "Oslo: rain, 9C", "Paris: cloudy, 17C"},
}, {
	name: "TASK-T3", goal: "Compare orders O8 and O9: their prices in GBP and the stock of O9's item.",
	steps: []scenarioStep{
		{id: "o8", tool: "order_lookup", desc: "Look up order O8", input: `{"order":"O8"}`, args: `{"order":"O8"}`,
			out: fact("O8 is 1 x SKU-8", `"sku":"SKU-8","warehouse":"A"`), latency: 10 * ms},
		{id: "o9", tool: "order_lookup", desc: "Look up order O9", input: `{"order":"O9"}`, args: `{"order":"O9"}`,
			out: fact("O9 is 3 x SKU-9", `"sku":"SKU-9","warehouse":"C"`), latency: 40 * ms},
		{id: "fx", tool: "fx", desc: "Get the EUR to GBP rate", input: `{"from":"EUR","to":"GBP"}`, args: `{"from":"EUR","to":"GBP"}`,
			out: fact("1 EUR = 0.86 GBP", `"rate":0.86`), latency: 20 * ms},
		{id: "p8", tool: "price", desc: "Price O8's item", input: `{"sku":"{{o8.result.sku}}"}`, args: `{"sku":"SKU-8"}`, deps: []string{"o8"},
			out: fact("SKU-8 costs 100 EUR", `"eur":100`), latency: 50 * ms},
		{id: "p9", tool: "price", desc: "Price O9's item", input: `{"sku":"{{o9.result.sku}}"}`, args: `{"sku":"SKU-9"}`, deps: []string{"o9"},
			out: fact("SKU-9 costs 30 EUR", `"eur":30`), latency: 10 * ms},
		{id: "s9", tool: "stock", desc: "Check stock of O9's item at its warehouse", input: `{"sku":"{{o9.result.sku}}","warehouse":"{{o9.result.warehouse}}"}`, args: `{"sku":"SKU-9","warehouse":"C"}`, deps: []string{"o9"},
			out: fact("C has 12 of SKU-9", `"units":12`), latency: 20 * ms},
	},
	facts: []string{"O8 is 1 x SKU-8", "O9 is 3 x SKU-9", "1 EUR = 0.86 GBP", "SKU-8 costs 100 EUR", "SKU-9 costs 30 EUR", "C has 12 of SKU-9"},
}, {
	name: "TASK-T4", goal: "Where can order O10 ship from (warehouses A, B, C), what does its item cost in JPY, and what is the weather at its address?",
	steps: []scenarioStep{
		{id: "order", tool: "order_lookup", desc: "Look up order O10", input: `{"order":"O10"}`, args: `{"order":"O10"}`,
			out: fact("O10 is 1 x SKU-10 to Nice", `"sku":"SKU-10","city":"Nice"`), latency: 20 * ms},
		{id: "fx", tool: "fx", desc: "Get the USD to JPY rate", input: `{"from":"USD","to":"JPY"}`, args: `{"from":"USD","to":"JPY"}`,
			out: fact("1 USD = 151 JPY", `"rate":151`), latency: 30 * ms},
		{id: "sa", tool: "stock", desc: "Stock of the item at A", input: `{"sku":"{{order.result.sku}}","warehouse":"A"}`, args: `{"sku":"SKU-10","warehouse":"A"}`, deps: []string{"order"},
			out: fact("A has 2 of SKU-10", `"units":2`), latency: 10 * ms},
		{id: "sb", tool: "stock", desc: "Stock of the item at B", input: `{"sku":"{{order.result.sku}}","warehouse":"B"}`, args: `{"sku":"SKU-10","warehouse":"B"}`, deps: []string{"order"},
			out: fact("B has 0 of SKU-10", `"units":0`), latency: 60 * ms},
		{id: "sc", tool: "stock", desc: "Stock of the item at C", input: `{"sku":"{{order.result.sku}}","warehouse":"C"}`, args: `{"sku":"SKU-10","warehouse":"C"}`, deps: []string{"order"},
			out: fact("C has 7 of SKU-10", `"units":7`), latency: 10 * ms},
		{id: "price", tool: "price", desc: "Price the item", input: `{"sku":"{{order.result.sku}}"}`, args: `{"sku":"SKU-10"}`, deps: []string{"order"},
			out: fact("SKU-10 costs 12 USD", `"usd":12`), latency: 30 * ms},
		{id: "weather", tool: "weather", desc: "Weather at the order's address", input: `{"city":"{{order.result.city}}"}`, args: `{"city":"Nice"}`, deps: []string{"order"},
			out: fact("Nice: sunny, 21C", ""), latency: 20 * ms},
	},
	facts: []string{"O10 is 1 x SKU-10 to Nice", "1 USD = 151 JPY", "A has 2 of SKU-10", "B has 0 of SKU-10", "C has 7 of SKU-10", "SKU-10 costs 12 USD", "Nice: sunny, 21C"},
}, {
	name: "TASK-T5", goal: "How far is Lyon from Bern and what is the weather there; and what does order O11 cost in CHF?",
	steps: []scenarioStep{
		{id: "dist", tool: "distance", desc: "Distance from Lyon to Bern", input: `{"from":"Lyon","to":"Bern"}`, args: `{"from":"Lyon","to":"Bern"}`,
			out: fact("Lyon to Bern is 300 km", `"to":"Bern","km":300`), latency: 80 * ms},
		{id: "weather", tool: "weather", desc: "Weather in Bern", input: `{"city":"Bern"}`, args: `{"city":"Bern"}`,
			out: fact("Bern: snow, -2C", ""), latency: 10 * ms},
		{id: "order", tool: "order_lookup", desc: "Look up order O11", input: `{"order":"O11"}`, args: `{"order":"O11"}`,
			out: fact("O11 is 4 x SKU-11", `"sku":"SKU-11"`), latency: 20 * ms},
		{id: "price", tool: "price", desc: "Price O11's item", input: `{"sku":"{{order.result.sku}}"}`, args: `{"sku":"SKU-11"}`, deps: []string{"order"},
			out: fact("SKU-11 costs 9 EUR", `"eur":9,"currency":"EUR"`), latency: 20 * ms},
		{id: "fx", tool: "fx", desc: "Convert the item's currency to CHF", input: `{"from":"{{price.result.currency}}","to":"CHF"}`, args: `{"from":"EUR","to":"CHF"}`, deps: []string{"price"},
			out: fact("1 EUR = 0.94 CHF", `"rate":0.94`), latency: 20 * ms},
	},
	facts: []string{"Lyon to Bern is 300 km", "Bern: snow, -2C", "O11 is 4 x SKU-11", "SKU-11 costs 9 EUR", "1 EUR = 0.94 CHF"},
}}

// The tools' argument structs: their JSON Schemas are derived from them.
type (
	orderArgs struct {
		Order string `json:"order" jsonschema:"description=the order id"`
	}
	skuArgs struct {
		SKU string `json:"sku"`
	}
	stockArgs struct {
		SKU       string `json:"sku"`
		Warehouse string `json:"warehouse"`
	}
	pairArgs struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	cityArgs struct {
		City string `json:"city"`
	}
)

// scenarioWorld answers the tools' calls from the tasks' table, after each
// call's latency (slept for real: the benchmark measures wall time).
type scenarioWorld struct {
	table map[string]scenarioStep // by tool + args
	sleep bool
}

func newScenarioWorld(sleep bool) *scenarioWorld {
	w := &scenarioWorld{table: map[string]scenarioStep{}, sleep: sleep}
	for _, t := range scenarioTasks {
		for _, s := range t.steps {
			w.table[s.tool+" "+s.args] = s
		}
	}
	return w
}

// modelledLatency waits d, the modelled latency of a tool or model call of
// the scenario benchmark (the workload whose wall time it measures, never
// a test's synchronisation), or until ctx ends.
func modelledLatency(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *scenarioWorld) call(ctx context.Context, tool string, args any) (string, error) {
	b, _ := json.Marshal(args)
	s, ok := w.table[tool+" "+string(b)]
	if !ok {
		return "", fmt.Errorf("%w: no answer for %s %s", plan.ErrBadInput, tool, b)
	}
	if w.sleep {
		if err := modelledLatency(ctx, s.latency); err != nil {
			return "", err
		}
	}
	return s.out, nil
}

func scenarioTool[A any](w *scenarioWorld, name, desc string) tools.Tool {
	return tool.New(name, desc, func(ctx context.Context, a A) (string, error) { return w.call(ctx, name, a) })
}

func (w *scenarioWorld) tools() []tools.Tool {
	return []tools.Tool{
		scenarioTool[orderArgs](w, "order_lookup", "Look up an order: item (sku), quantity, warehouse, delivery city."),
		scenarioTool[skuArgs](w, "price", "The unit price of an item."),
		scenarioTool[stockArgs](w, "stock", "Units of an item in stock at a warehouse."),
		scenarioTool[pairArgs](w, "fx", "The exchange rate between two currencies."),
		scenarioTool[pairArgs](w, "distance", "The road distance between two cities."),
		scenarioTool[cityArgs](w, "weather", "Today's weather in a city."),
	}
}

// scenarioModel is the scripted model of the scenario. It tells its calls
// apart by their prompts: the planner's ("You are a planner") gets the
// task's plan, the responder's ("Answer the user's request") and a ReAct
// loop's last call an answer stating the facts found in the prompt, and a
// ReAct loop's other calls the task's next tool calls: with parallel, every
// call whose inputs the transcript already holds, at once (parallel
// function calling, as current models do: one turn per level of the
// plan), else the next one in the task's order (one a turn, as the
// original ReAct agent makes them). Latency, when set, is slept for each
// call (the benchmark's modelled latency), after the reply is known.
type scenarioModel struct {
	parallel bool
	latency  func(promptTokens, completionTokens int) time.Duration
}

// modelLatency is the benchmark's modelled latency of one model call: a
// fixed time to the first token and a time per token written.
func modelLatency(_, completionTokens int) time.Duration {
	return firstToken + time.Duration(completionTokens)*perToken
}

const (
	firstToken = 40 * ms
	perToken   = 250 * time.Microsecond
)

var (
	taskMarker = regexp.MustCompile(`TASK-T\d`)
	factIn     = regexp.MustCompile(`\\?"fact\\?":\s*\\?"((?:[^"\\]|\\[^"])*)\\?"`)
)

// scenarioTokens is the token rule of the scenario: a token per four
// characters, rounded up.
func scenarioTokens(chars int) int { return (chars + 3) / 4 }

func (m scenarioModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var prompt strings.Builder
	called := map[string]bool{} // tool + " " + args
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				prompt.WriteString(p.Text)
			case llms.ToolCall:
				prompt.WriteString(p.FunctionCall.Name + p.FunctionCall.Arguments)
				called[p.FunctionCall.Name+" "+p.FunctionCall.Arguments] = true
			case llms.ToolCallResponse:
				prompt.WriteString(p.Content)
			}
		}
	}
	sent := prompt.Len()
	if len(o.Tools) > 0 {
		defs, _ := json.Marshal(o.Tools)
		sent += len(defs)
	}
	text := prompt.String()
	task, ok := findTask(taskMarker.FindString(text))
	if !ok {
		return nil, fmt.Errorf("scenario model: no task in the prompt")
	}
	choice := &llms.ContentChoice{}
	switch {
	case strings.Contains(text, "You are a planner"):
		choice.Content = task.planJSON()
	case strings.Contains(text, "You carry out one step of a plan") && len(called) < len(task.steps):
		for _, s := range task.nextCalls(called, m.parallel) {
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: fmt.Sprintf("call_%s", s.id), Type: "function",
				FunctionCall: &llms.FunctionCall{Name: s.tool, Arguments: s.args}})
		}
	default:
		choice.Content = answerFrom(task, text)
	}
	received := len(choice.Content)
	for _, tc := range choice.ToolCalls {
		received += len(tc.FunctionCall.Name) + len(tc.FunctionCall.Arguments)
	}
	p, c := scenarioTokens(sent), scenarioTokens(received)
	choice.GenerationInfo = map[string]any{"PromptTokens": p, "CompletionTokens": c, "TotalTokens": p + c}
	if m.latency != nil {
		if err := modelledLatency(ctx, m.latency(p, c)); err != nil {
			return nil, err
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// nextCalls are the steps a ReAct loop calls next, given the calls made:
// in parallel every step not called whose dependencies were, else the
// first step not called.
func (t scenarioTask) nextCalls(called map[string]bool, parallel bool) []scenarioStep {
	done := map[string]bool{}
	for _, s := range t.steps {
		done[s.id] = called[s.tool+" "+s.args]
	}
	var next []scenarioStep
	for _, s := range t.steps {
		if done[s.id] || slices.ContainsFunc(s.deps, func(d string) bool { return !done[d] }) {
			continue
		}
		next = append(next, s)
		if !parallel {
			break
		}
	}
	return next
}

func (m scenarioModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func findTask(name string) (scenarioTask, bool) {
	i := slices.IndexFunc(scenarioTasks, func(t scenarioTask) bool { return t.name == name })
	if i < 0 {
		return scenarioTask{}, false
	}
	return scenarioTasks[i], true
}

// planJSON is the plan the model writes for the task, as the planner's
// prompt asks: its steps (the goal left out: the agent has it) and a final
// step that writes the answer from every step's fact with references
// ({"answer": "…"}), in the words answerFrom would use.
func (t scenarioTask) planJSON() string {
	type step struct {
		ID          string          `json:"id"`
		Description string          `json:"description"`
		Tool        string          `json:"tool"`
		Input       json.RawMessage `json:"input"`
		DependsOn   []string        `json:"depends_on"`
	}
	steps := []step{}
	var ids, refs []string
	for _, s := range t.steps {
		steps = append(steps, step{s.id, s.desc, s.tool, json.RawMessage(s.input), append([]string{}, s.deps...)})
		ids = append(ids, s.id)
		refs = append(refs, "{{"+s.id+".result.fact}}")
	}
	answer, _ := json.Marshal(map[string]string{"answer": t.name + ": " + strings.Join(refs, "; ") + "."})
	steps = append(steps, step{"answer", "Answer from the results", "", answer, ids})
	b, _ := json.Marshal(map[string]any{"steps": steps})
	return string(b)
}

// answerFrom states the facts of the task found in the prompt, in the
// task's order.
func answerFrom(t scenarioTask, prompt string) string {
	found := map[string]bool{}
	for _, m := range factIn.FindAllStringSubmatch(prompt, -1) {
		found[strings.ReplaceAll(m[1], `\"`, `"`)] = true
	}
	var stated []string
	for _, f := range t.facts {
		if found[f] {
			stated = append(stated, f)
		}
	}
	return t.name + ": " + strings.Join(stated, "; ") + "."
}

// rightAnswer reports what a task's answer lacks.
func rightAnswer(t scenarioTask, answer string) error {
	var missing []string
	for _, f := range t.facts {
		if !strings.Contains(answer, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: the answer does not state %q: %s", t.name, missing, answer)
	}
	return nil
}

// scenarioRun is what answering one task cost.
type scenarioRun struct {
	answer     string
	modelCalls int
	tokens     int
	toolCalls  int
	wall       time.Duration
	// measured is the plan's critical path as the calls' durations were
	// measured (agent runs only).
	measured time.Duration
	// bound is the least wall time of an agent run: its model calls'
	// modelled latencies (modelLatency; the planner's and the responder's
	// wait for everything before them) and the plan's critical path.
	bound time.Duration
}

// runAgent answers the task with the plan-and-execute agent.
func runAgent(ctx context.Context, app *graph.Compiled[nodes.AgentState], t scenarioTask) (scenarioRun, error) {
	start := time.Now()
	out, err := app.Invoke(ctx, nodes.NewInput(t.goalText()), graph.WithThread(t.name))
	if err != nil {
		return scenarioRun{}, err
	}
	bound := time.Duration(out.Usage.ModelCalls)*firstToken + time.Duration(out.Usage.CompletionTokens)*perToken + t.criticalPath()
	return scenarioRun{answer: out.Answer(), modelCalls: out.Usage.ModelCalls, tokens: out.Usage.TotalTokens,
		toolCalls: out.Usage.ToolCalls, wall: time.Since(start), measured: t.measuredCriticalPath(out.Audit), bound: bound}, nil
}

// runReAct answers the task with a ReAct loop over the whole task, on m.
func runReAct(ctx context.Context, m scenarioModel, ts []tools.Tool, t scenarioTask) (scenarioRun, error) {
	r := &nodes.ReActExecutor{Model: m, Tools: ts, MaxModelCalls: 20}
	start := time.Now()
	out, info := r.Run(ctx, plan.Step{ID: "task", Description: t.goalText()}, nil)
	if out.Status != plan.StatusCompleted {
		return scenarioRun{}, fmt.Errorf("%s: react: %s", t.name, out.Err)
	}
	return scenarioRun{answer: out.Output, modelCalls: info.ModelCalls, tokens: info.Tokens.Total,
		toolCalls: len(out.Audit), wall: time.Since(start)}, nil
}

// scenarioAgent compiles the agent of the scenario on m, with a memory
// checkpointer.
func scenarioAgent(m scenarioModel, ts []tools.Tool, opts ...nodes.AgentOption) (*graph.Compiled[nodes.AgentState], error) {
	a, err := nodes.NewAgent(nodes.AgentConfig{Model: m, Tools: ts}, opts...)
	if err != nil {
		return nil, err
	}
	return a.Compile(graph.WithCheckpointer(memory.New()))
}

// agentModes are the agent's two ways of running a round.
var agentModes = []struct {
	name string
	opts []nodes.AgentOption
}{{"eager", nil}, {"rounds", []nodes.AgentOption{nodes.WithRoundByRound()}}}

// TestTheScenarioTasksAreAnsweredRight runs the five tasks with the agent
// (eager steps, the default, and round by round) and with the ReAct loop
// (one tool call a turn, and parallel tool calls), without latencies:
// every answer states every fact, and the agent makes at most a third of
// the model calls of the stronger ReAct loop (parallel calls, the fewer
// calls and tokens) and spends at most half its tokens.
func TestTheScenarioTasksAreAnsweredRight(t *testing.T) {
	t.Parallel()
	ts := newScenarioWorld(false).tools()
	var react [2]scenarioRun // sequential, parallel
	for i, m := range []scenarioModel{{}, {parallel: true}} {
		for _, task := range scenarioTasks {
			r, err := runReAct(t.Context(), m, ts, task)
			require.NoError(t, err)
			require.NoError(t, rightAnswer(task, r.answer), "react")
			require.Equal(t, len(task.steps), r.toolCalls)
			react[i].modelCalls += r.modelCalls
			react[i].tokens += r.tokens
		}
	}
	require.Less(t, react[1].modelCalls, react[0].modelCalls, "parallel calls take fewer turns")
	require.Less(t, react[1].tokens, react[0].tokens)
	for _, mode := range agentModes {
		app, err := scenarioAgent(scenarioModel{}, ts, mode.opts...)
		require.NoError(t, err)
		var agent scenarioRun
		for _, task := range scenarioTasks {
			r, err := runAgent(t.Context(), app, task)
			require.NoError(t, err, mode.name)
			require.NoError(t, rightAnswer(task, r.answer), mode.name)
			require.Equal(t, len(task.steps), r.toolCalls, mode.name)
			agent.modelCalls += r.modelCalls
			agent.tokens += r.tokens
		}
		for i, name := range []string{"sequential", "parallel"} {
			t.Logf("%s vs %s ReAct: model calls %d vs %d (%.2f), tokens %d vs %d (%.2f)", mode.name, name,
				agent.modelCalls, react[i].modelCalls, float64(agent.modelCalls)/float64(react[i].modelCalls),
				agent.tokens, react[i].tokens, float64(agent.tokens)/float64(react[i].tokens))
		}
		require.LessOrEqual(t, 3*agent.modelCalls, react[1].modelCalls, "%s: model calls at most a third of ReAct's", mode.name)
		require.LessOrEqual(t, 2*agent.tokens, react[1].tokens, "%s: tokens at most half of ReAct's", mode.name)
	}
}
