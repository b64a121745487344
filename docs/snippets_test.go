package docs

// Every Go snippet of the docs, verbatim, in a function that declares what
// the snippet assumes (as parameters or locals) and uses what it leaves.
// TestDocCodeIsRealCode finds the snippets' lines here; go vet and go test
// compile them; the tests at the end run the ones that work offline.
//
// The functions are named snippet<Page><Section>, in page order.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/eval"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// ---- concepts.md ----

// State and reducers.
type Essay struct {
	Topic     string
	Drafts    []string
	Revisions int
	Approved  bool
}

var (
	topic     = state.Value("topic", func(e *Essay) *string { return &e.Topic })
	drafts    = state.Append("drafts", func(e *Essay) *[]string { return &e.Drafts })
	revisions = state.Sum("revisions", func(e *Essay) *int { return &e.Revisions })
	approved  = state.Value("approved", func(e *Essay) *bool { return &e.Approved })
	essay     = state.NewSchema(topic, drafts, revisions, approved)
)

// write and enough are the node and the router the snippets name, as in
// graph/example_test.go.
func write(ctx context.Context, e Essay) (state.Update[Essay], error) {
	draft := fmt.Sprintf("%s, draft %d", e.Topic, e.Revisions+1)
	return state.Writes(drafts.Set([]string{draft}), revisions.Set(1)), nil
}

func enough(ctx context.Context, e Essay) (string, error) {
	if e.Revisions < 3 {
		return "write", nil
	}
	return graph.End, nil
}

// Nodes and edges.
func snippetConceptsNodesAndEdges() (*graph.Compiled[Essay], error) {
	g := graph.New(essay).
		AddNode("write", write).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", graph.End)
	app, err := g.Compile()
	return app, err
}

// Streaming.
func snippetConceptsStreaming(ctx context.Context, app *graph.Compiled[Essay], in state.Update[Essay]) error {
	for ev, err := range app.Stream(ctx, in, graph.StreamModes(graph.Updates, graph.Custom)) {
		if err != nil {
			return err
		}
		switch ev.Mode {
		case graph.Updates:
			fmt.Printf("step %d: %s wrote %d fields\n", ev.Step, ev.Node, len(ev.Update.Writes))
		case graph.Custom:
			fmt.Printf("step %d: %s emitted %v\n", ev.Step, ev.Node, ev.Custom)
		}
	}
	return nil
}

// ---- checkpoints.md ----

// The durable run at the top of the page.
func snippetCheckpointsDurable(ctx context.Context, g *graph.StateGraph[Essay], input state.Update[Essay]) error {
	saver, err := sqlite.Open("runs.db") // one file, WAL; or memory.New(); or postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer saver.Close()
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return err
	}
	out, err := app.Invoke(ctx, input, graph.WithThread("order-1001"))
	if err != nil {
		return err
	}
	fmt.Println(out.Drafts)
	return nil
}

// Resume.
func snippetCheckpointsResume(ctx context.Context, app *graph.Compiled[Essay]) (Essay, error) {
	out, err := app.Invoke(ctx, state.Update[Essay]{}, graph.WithThread("order-1001"))
	return out, err
}

// Time travel.
func snippetCheckpointsTimeTravel(ctx context.Context, app *graph.Compiled[Essay], id, cp string) error {
	latest, err := app.State(ctx, graph.WithThread(id)) // values, next, tasks, interrupts
	if err != nil {
		return err
	}
	pinned, err := app.State(ctx, graph.WithThread(id), graph.WithCheckpoint(cp))
	if err != nil {
		return err
	}
	fmt.Println(latest.Next, pinned.Metadata.Step)
	for snap, err := range app.History(ctx, graph.WithThread(id), graph.WithLimit(20)) {
		if err != nil {
			return err
		}
		fmt.Println(snap.Metadata.Step, snap.Metadata.Source, snap.Next)
	}
	fmt.Println("pinned:", pinned.Values.Drafts)
	return nil
}

// Human in the loop: the node that asks.
func snippetCheckpointsInterrupt(ctx context.Context, e Essay) (state.Update[Essay], error) {
	ok, err := graph.Interrupt[bool](ctx, "publish this draft?")
	if err != nil {
		return state.Update[Essay]{}, err // the run stops here
	}
	return state.Writes(approved.Set(ok)), nil
}

// Human in the loop: the question, read back from the thread.
func snippetCheckpointsPayload(ctx context.Context, app *graph.Compiled[Essay]) (string, error) {
	snap, err := app.State(ctx, graph.WithThread("essay-1"))
	if err != nil {
		return "", err
	}
	prompt, err := graph.Payload[string](snap.Interrupts[0])
	return prompt, err
}

// Backends: the conformance test of a backend, here run on memory.New().
func TestConformance(t *testing.T) {
	checkpointtest.Run(t, func(tb testing.TB) checkpoint.Saver { return memory.New() })
}

// ---- agent.md ----

// The graph: ExampleNewAgent, on SQLite.
func snippetAgentQuickstart(ctx context.Context) error {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig())
	if err != nil {
		return err
	}
	saver, err := sqlite.Open("planexecute.db")
	if err != nil {
		return err
	}
	defer saver.Close()
	app, err := agent.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return err
	}
	out, err := app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001"))
	if err != nil {
		return err
	}
	fmt.Println(out.Answer())
	return nil
}

// Budgets.
func snippetAgentBudgets(c *delivery.Case) nodes.AgentConfig {
	cfg := c.AgentConfig()
	cfg.Budget = nodes.Budget{
		MaxModelCalls:       30,
		MaxToolCalls:        20,
		MaxToolCallsPerStep: 3,
		MaxReplans:          2,
		MaxWall:             time.Minute,
	}
	return cfg
}

// Audit.
func snippetAgentAudit(out nodes.AgentState) (int, int, []byte, error) {
	for _, r := range out.Audit {
		fmt.Println(r.StepID, r.Tool, r.Status, r.Duration)
	}
	stockA := out.Audit.ForStep("stock_a")
	failures := out.Audit.Errors()
	data, err := out.Audit.JSON()
	return len(stockA), len(failures), data, err
}

// Checkpoints, Ctrl-C and approval: resume.
func snippetAgentResume(ctx context.Context, app *graph.Compiled[nodes.AgentState]) (nodes.AgentState, error) {
	out, err := app.Invoke(ctx, state.Update[nodes.AgentState]{}, graph.WithThread("o1001"))
	return out, err
}

// Checkpoints, Ctrl-C and approval: approval before the answer.
func snippetAgentApproval(ctx context.Context, app *graph.Compiled[nodes.AgentState], c *delivery.Case) (out nodes.AgentState, err error) {
	_, err = app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001-approve"),
		graph.InterruptBefore(nodes.NodeRespond))
	if errors.Is(err, graph.ErrInterrupted) {
		// show the findings, ask; if approved:
		out, err = app.Invoke(ctx, state.Update[nodes.AgentState]{}, graph.WithThread("o1001-approve"))
	}
	return out, err
}

// Using a real model. No call is made: building the agent is offline.
func snippetAgentRealModel(c *delivery.Case) error {
	llm, err := openai.New(openai.WithToken(os.Getenv("OPENAI_API_KEY")), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		return err
	}
	cfg := c.AgentConfig()
	cfg.Model = llm
	cfg.Planner, cfg.Replanner, cfg.Responder = nil, nil, nil
	agent, err := nodes.NewAgent(cfg)
	if err != nil {
		return err
	}
	_, err = agent.Compile()
	return err
}

// Your own tools.
func snippetAgentOwnTools(llm llms.Model) (*nodes.Agent, error) {
	lookup := tool.Func{
		ToolName:        "order_lookup",
		ToolDescription: `Look up an order. Input: {"order_id": "..."}.`,
		Fn: func(_ context.Context, input string) (string, error) {
			return `{"order_id":"O1001","sku":"SKU-01","warehouse":"A"}`, nil
		},
	}
	agent, err := nodes.NewAgent(nodes.AgentConfig{
		Model:  llm,
		Tools:  []tools.Tool{lookup},
		Budget: nodes.Budget{MaxModelCalls: 10, MaxToolCalls: 20, MaxReplans: 2},
	})
	return agent, err
}

// Extending the graph.
func snippetAgentExtend(ctx context.Context, c *delivery.Case) error {
	agent, err := nodes.NewAgent(c.AgentConfig(),
		nodes.WithNodeOptions(nodes.NodeExecute, graph.WithTimeout(30*time.Second)))
	if err != nil {
		return err
	}
	agent.Graph().
		AddNode("notify", func(ctx context.Context, s nodes.AgentState) (state.Update[nodes.AgentState], error) {
			log.Printf("answered after %d tool calls", s.Usage.ToolCalls)
			return state.Update[nodes.AgentState]{}, nil
		}).
		AddEdge(nodes.NodeRespond, "notify")
	app, err := agent.Compile()
	if err != nil {
		return err
	}
	out, err := app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...))
	if err != nil {
		return err
	}
	fmt.Println(out.Answer())
	return nil
}

// Watching a run.
func snippetAgentWatch(ctx context.Context, app *graph.Compiled[nodes.AgentState], c *delivery.Case) error {
	for ev, err := range app.Stream(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001-stream"),
		graph.StreamModes(graph.Tasks, graph.Values, graph.Custom)) {
		if err != nil {
			return err
		}
		if ev.Mode == graph.Tasks && ev.Task.Result {
			fmt.Printf("step %d: %s finished\n", ev.Step, ev.Node)
		}
	}
	return nil
}

// Evaluating.
func snippetAgentEvaluate(ctx context.Context, app *graph.Compiled[nodes.AgentState], c *delivery.Case) error {
	rep, err := eval.Run(ctx, app, []eval.Case{{
		Name: "o1001", Goal: c.Goal(), Constraints: c.Constraints(),
		Check: func(s nodes.AgentState) error {
			if !strings.Contains(s.Answer(), "warehouse B, standard shipping") {
				return errors.New("no recommendation")
			}
			return nil
		},
	}})
	if err != nil {
		return err
	}
	fmt.Printf("success %.0f%%, %.1f tool calls on average\n", 100*rep.SuccessRate, rep.MeanToolCalls)
	return nil
}

// ---- deployment.md ----

// EssayInput is a run's JSON input, as the deployment snippet decodes it.
type EssayInput struct{ Topic string }

// Setting up: a worker process's start-up, on a pool to PostgreSQL.
func snippetDeploymentStartUp(ctx context.Context, pool *pgxpool.Pool, g *graph.StateGraph[Essay]) error {
	saver := postgres.New(pool)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return err
	}
	reg := worker.NewRegistry()
	worker.Register(reg, "essay", app, worker.JSONInput(func(in EssayInput) (state.Update[Essay], error) {
		return state.Writes(topic.Set(in.Topic)), nil
	}))
	client, err := worker.New(pool, reg, worker.WithSaver(saver), worker.WithWorkers(4))
	if err != nil {
		return err
	}
	if err := client.Migrate(ctx); err != nil {
		return err
	}
	return nil
}

// ---- running them ----
//
// The tests below run the snippets offline (memory savers, SQLite files in
// a temporary directory, the delivery case's simulated tools, no model) and
// check what they print or return. They are not parallel: they capture
// os.Stdout and the log output, and change directory for the snippets that
// open a database by a relative name.

// printed runs f with os.Stdout captured and returns what f printed.
func printed(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&buf, r)
	}()
	ferr := f()
	os.Stdout = stdout
	require.NoError(t, w.Close())
	<-done
	require.NoError(t, r.Close())
	require.NoError(t, ferr)
	return buf.String()
}

func TestConceptsSnippets(t *testing.T) {
	ctx := t.Context()

	app, err := snippetConceptsNodesAndEdges()
	require.NoError(t, err)
	out, err := app.Invoke(ctx, state.Writes(topic.Set("Go")))
	require.NoError(t, err)
	require.Equal(t, []string{"Go, draft 1", "Go, draft 2", "Go, draft 3"}, out.Drafts)

	reviewed, err := graph.New(essay).
		AddNode("write", write).
		AddNode("review", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			graph.Emit(ctx, "a review of "+e.Topic)
			return state.Writes(approved.Set(true)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "review").
		Compile()
	require.NoError(t, err)
	got := printed(t, func() error { return snippetConceptsStreaming(ctx, reviewed, state.Writes(topic.Set("iterators"))) })
	require.Equal(t, "step 1: write wrote 2 fields\n"+
		"step 2: review emitted a review of iterators\n"+
		"step 2: review wrote 1 fields\n", got)
}

func TestCheckpointsSnippets(t *testing.T) {
	t.Chdir(t.TempDir()) // the snippet opens runs.db
	ctx := t.Context()

	// A writer that fails on its second call: the durable run stops with
	// the error, and resuming runs only what had not finished.
	calls := 0
	g := graph.New(essay).
		AddNode("write", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			calls++
			if calls == 2 {
				return state.Update[Essay]{}, errors.New("the model timed out")
			}
			return write(ctx, e)
		}).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", graph.End)
	err := snippetCheckpointsDurable(ctx, g, state.Writes(topic.Set("Go")))
	require.ErrorContains(t, err, "the model timed out")

	saver, err := sqlite.Open("runs.db")
	require.NoError(t, err)
	defer saver.Close()
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	out, err := snippetCheckpointsResume(ctx, app)
	require.NoError(t, err)
	require.Equal(t, []string{"Go, draft 1", "Go, draft 2", "Go, draft 3"}, out.Drafts)
	require.Equal(t, 4, calls, "the first draft is not written again")

	var cp string
	for snap, err := range app.History(ctx, graph.WithThread("order-1001")) {
		require.NoError(t, err)
		if snap.Metadata.Step == 1 {
			cp = snap.Config.CheckpointID
		}
	}
	require.NotEmpty(t, cp)
	got := printed(t, func() error { return snippetCheckpointsTimeTravel(ctx, app, "order-1001", cp) })
	require.Contains(t, got, "0 loop [write]\n")
	require.Contains(t, got, "-1 input [__start__]\n")
	require.Contains(t, got, "pinned: [Go, draft 1]\n")

	asking, err := graph.New(essay).
		AddNode("write", write).
		AddNode("approve", snippetCheckpointsInterrupt).
		AddEdge(graph.Start, "write").AddEdge("write", "approve").
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	_, err = asking.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("essay-1"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "publish this draft?", ie.Interrupts[0].Value)
	prompt, err := snippetCheckpointsPayload(ctx, asking)
	require.NoError(t, err)
	require.Equal(t, "publish this draft?", prompt)
	out, err = asking.Invoke(ctx, state.Update[Essay]{}, graph.WithThread("essay-1"), graph.Resume(true))
	require.NoError(t, err)
	require.True(t, out.Approved)
}

const recommendation = "Recommendation: switch to warehouse B, standard shipping"

// deliveryApp is the offline delivery agent on a memory saver.
func deliveryApp(t *testing.T, cfg nodes.AgentConfig) *graph.Compiled[nodes.AgentState] {
	t.Helper()
	agent, err := nodes.NewAgent(cfg)
	require.NoError(t, err)
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return app
}

func TestAgentSnippets(t *testing.T) {
	t.Chdir(t.TempDir()) // the quickstart opens planexecute.db
	ctx := t.Context()

	got := printed(t, func() error { return snippetAgentQuickstart(ctx) })
	require.Contains(t, got, recommendation)

	// The thread is in planexecute.db, for any process to read.
	saver, err := sqlite.Open("planexecute.db")
	require.NoError(t, err)
	defer saver.Close()
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig())
	require.NoError(t, err)
	app, err := agent.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	snap, err := app.State(ctx, graph.WithThread("o1001"))
	require.NoError(t, err)
	require.True(t, snap.Values.Done())

	var stockA, failures int
	var data []byte
	got = printed(t, func() error {
		stockA, failures, data, err = snippetAgentAudit(snap.Values)
		return err
	})
	require.Contains(t, got, "stock_a stock_check ok")
	require.Equal(t, 1, stockA)
	require.Zero(t, failures)
	var records []nodes.AuditRecord
	require.NoError(t, json.Unmarshal(data, &records))
	require.Len(t, records, snap.Values.Usage.ToolCalls)

	t.Run("budgets", func(t *testing.T) {
		c := delivery.New()
		cfg := snippetAgentBudgets(c)
		out, err := deliveryApp(t, cfg).Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("b"))
		require.NoError(t, err)
		require.Contains(t, out.Answer(), recommendation)
		require.Nil(t, out.Stop)
	})

	t.Run("resume", func(t *testing.T) {
		c := delivery.New()
		app := deliveryApp(t, c.AgentConfig())
		_, err := app.Invoke(ctx, nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001"),
			graph.InterruptBefore(nodes.NodeRespond))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		out, err := snippetAgentResume(ctx, app)
		require.NoError(t, err)
		require.Contains(t, out.Answer(), recommendation)
		require.Equal(t, 1, c.Calls("order_lookup"), "resuming runs no tool again")
	})

	t.Run("approval", func(t *testing.T) {
		c := delivery.New()
		out, err := snippetAgentApproval(ctx, deliveryApp(t, c.AgentConfig()), c)
		require.NoError(t, err)
		require.Contains(t, out.Answer(), recommendation)
	})

	t.Run("real model, built offline", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "sk-offline")
		require.NoError(t, snippetAgentRealModel(delivery.New()))
	})

	t.Run("own tools", func(t *testing.T) {
		// A scripted model: the planner's JSON plan, then the answer.
		llm := fake.NewFakeLLM([]string{
			`{"steps": [{"id": "order", "description": "look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}},` +
				` {"id": "answer", "description": "say where it ships from", "tool": "", "depends_on": ["order"]}]}`,
			"Order O1001 ships from warehouse A.",
		})
		agent, err := snippetAgentOwnTools(llm)
		require.NoError(t, err)
		app, err := agent.Compile()
		require.NoError(t, err)
		out, err := app.Invoke(ctx, nodes.NewInput("Where does order O1001 ship from?"))
		require.NoError(t, err)
		require.Equal(t, "Order O1001 ships from warehouse A.", out.Answer())
		require.Equal(t, 2, out.Usage.ModelCalls)
		require.Equal(t, 1, out.Usage.ToolCalls)
		require.Equal(t, `{"order_id":"O1001","sku":"SKU-01","warehouse":"A"}`, out.Audit[0].Output)
	})

	t.Run("extend", func(t *testing.T) {
		var logged bytes.Buffer
		log.SetOutput(&logged)
		defer log.SetOutput(os.Stderr)
		got := printed(t, func() error { return snippetAgentExtend(ctx, delivery.New()) })
		require.Contains(t, got, recommendation)
		require.Contains(t, logged.String(), "answered after 5 tool calls")
	})

	t.Run("watch", func(t *testing.T) {
		c := delivery.New()
		got := printed(t, func() error { return snippetAgentWatch(ctx, deliveryApp(t, c.AgentConfig()), c) })
		require.True(t, strings.HasPrefix(got, "step 1: planner finished\n"), got)
		require.Contains(t, got, ": respond finished\n")
	})

	t.Run("evaluate", func(t *testing.T) {
		c := delivery.New()
		got := printed(t, func() error { return snippetAgentEvaluate(ctx, deliveryApp(t, c.AgentConfig()), c) })
		require.Equal(t, "success 100%, 5.0 tool calls on average\n", got)
	})
}

// The deployment snippet needs PostgreSQL: it runs when
// STATEGRAPH_POSTGRES_DSN is set (.ci/run sets it), in a schema of its own
// that the pool's search_path points to, dropped at the end.
func TestDeploymentSnippets(t *testing.T) {
	dsn := os.Getenv("STATEGRAPH_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("STATEGRAPH_POSTGRES_DSN is not set")
	}
	ctx := t.Context()
	admin, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(admin.Close)
	schema := fmt.Sprintf("docs_deployment_%d", time.Now().UnixNano())
	_, err = admin.Exec(ctx, "CREATE SCHEMA "+schema)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })

	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	g := graph.New(essay).AddNode("write", write).AddEdge(graph.Start, "write")
	require.NoError(t, snippetDeploymentStartUp(ctx, pool, g))
	// Migrate made the runs table, River's and the checkpoints' in the schema.
	var tables int
	require.NoError(t, pool.QueryRow(ctx,
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('stategraph_runs', 'river_job')`,
		schema).Scan(&tables))
	require.Equal(t, 2, tables)
}
