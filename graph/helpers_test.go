package graph_test

// The tests are grouped by subject (interrupt_test.go, resume_test.go,
// subgraph_test.go, …); this file holds what several of them share. A test
// whose comment begins "Mirrors …" ports a test or behaviour of LangGraph's
// own suite (libs/langgraph/tests/test_pregel.py, test_pregel_async.py,
// test_interruption.py, test_checkpoint*.py, test_async_durability.py,
// test_durable_retry.py, test_subgraph*.py, test_streaming*.py in
// langchain-ai/langgraph) and names the LangGraph test it mirrors.

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// counter is a small state used across the tests.
type counter struct {
	N     int
	Trail []string
	Last  string
	Items []string
	Total int
}

var (
	nField     = state.Value("n", func(s *counter) *int { return &s.N })
	trailField = state.Append("trail", func(s *counter) *[]string { return &s.Trail })
	lastField  = state.Value("last", func(s *counter) *string { return &s.Last })
	itemsField = state.Append("items", func(s *counter) *[]string { return &s.Items })
	totalField = state.Sum("total", func(s *counter) *int { return &s.Total })
	schema     = state.NewSchema(nField, trailField, lastField, itemsField, totalField)
)

// visit returns a node that appends its name to the trail.
func visit(name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Writes(trailField.Set([]string{name})), nil
	}
}

// counted wraps a node and counts its calls.
func counted(calls *atomic.Int64, fn graph.NodeFunc[counter]) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		calls.Add(1)
		return fn(ctx, s)
	}
}

// mustCompile compiles g or fails the test.
func mustCompile(t testing.TB, g *graph.StateGraph[counter], opts ...graph.CompileOption) *graph.Compiled[counter] {
	t.Helper()
	c, err := g.Compile(opts...)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return c
}

// history returns the thread's snapshots, newest first.
func history(t *testing.T, c *graph.Compiled[counter], thread string) []*graph.Snapshot[counter] {
	t.Helper()
	var out []*graph.Snapshot[counter]
	for s, err := range c.History(t.Context(), graph.WithThread(thread)) {
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// calls counts node runs by name, safely across goroutines.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) inc(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *calls) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// track returns a node that counts its runs and appends its name to the
// trail.
func (c *calls) track(name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		c.inc(name)
		return state.Writes(trailField.Set([]string{name})), nil
	}
}

// routeTo is a Router that always returns the given targets.
func routeTo(to ...string) graph.Router[counter] {
	return func(ctx context.Context, s counter) (graph.Route[counter], error) {
		return graph.Route[counter]{To: to}, nil
	}
}

// latestState returns the thread's latest snapshot.
func latestState(t *testing.T, c *graph.Compiled[counter], thread string) *graph.Snapshot[counter] {
	t.Helper()
	s, err := c.State(t.Context(), graph.WithThread(thread))
	require.NoError(t, err)
	return s
}

// askNode interrupts with payload and appends the answer to items.
func askNode(c *calls, name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		c.inc(name)
		v, err := graph.Interrupt[string](ctx, name+"?")
		if err != nil {
			return state.Update[counter]{}, err
		}
		return state.Writes(itemsField.Set([]string{v})), nil
	}
}

// zero is the empty update (no input).
var zero = state.Update[counter]{}

// recordingSaver wraps a saver: it records which checkpoints were stored, how
// many Puts run at once, the PutWrites calls per task, and any PutWrites
// against a checkpoint not stored yet; hooks may block or fail calls.
type recordingSaver struct {
	checkpoint.Saver
	beforePut    func(req checkpoint.PutRequest) error
	beforeWrites func(cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error

	mu         sync.Mutex
	stored     map[string]bool
	active     int
	maxActive  int
	puts       int
	writeCalls map[string]int
	early      []string // PutWrites against a checkpoint not stored (yet)
}

func newRecordingSaver() *recordingSaver {
	return &recordingSaver{Saver: memory.New(), stored: map[string]bool{}, writeCalls: map[string]int{}}
}

func (s *recordingSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	s.mu.Lock()
	s.puts++
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()
	if s.beforePut != nil {
		if err := s.beforePut(req); err != nil {
			return checkpoint.Config{}, err
		}
	}
	cfg, err := s.Saver.Put(ctx, req)
	if err == nil {
		s.mu.Lock()
		s.stored[req.Checkpoint.ID] = true
		s.mu.Unlock()
	}
	return cfg, err
}

func (s *recordingSaver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	s.mu.Lock()
	if !s.stored[cfg.CheckpointID] {
		s.early = append(s.early, cfg.CheckpointID)
	}
	s.writeCalls[taskID]++
	s.mu.Unlock()
	if s.beforeWrites != nil {
		if err := s.beforeWrites(cfg, taskID, ws); err != nil {
			return err
		}
	}
	return s.Saver.PutWrites(ctx, cfg, taskID, ws)
}

func (s *recordingSaver) snapshot() (active, maxActive, puts int, early []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active, s.maxActive, s.puts, slices.Clone(s.early)
}

// allDurabilities lists every durability mode.
var allDurabilities = []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit}

// chainABC is Start → a → b → c, each node tracked by cs; b is replaceable.
func chainABC(cs *calls, b graph.NodeFunc[counter]) *graph.StateGraph[counter] {
	if b == nil {
		b = cs.track("b")
	}
	return graph.New(schema).
		AddNode("a", cs.track("a")).
		AddNode("b", b).
		AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
}

// join joins s with commas.
func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
