package graph_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
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

func mustCompile(t testing.TB, g *graph.StateGraph[counter], opts ...graph.CompileOption) *graph.Compiled[counter] {
	t.Helper()
	c, err := g.Compile(opts...)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return c
}
