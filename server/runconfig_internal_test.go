package server

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type otherKey struct{}

// TestWithConfigIsAContextLikeWithValue pins what withConfig's own
// context type must keep of context.WithValue: the run's Config for
// ConfigOf, the parent's other values, and the parent's cancellation
// reaching contexts derived from it.
func TestWithConfigIsAContextLikeWithValue(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "kept"))
	in := RunInput{AssistantID: "a", Configurable: map[string]any{"k": 1.0}, Context: map[string]any{"c": "x"}, Tags: []string{"t"}}
	ctx := withConfig(parent, in)

	got, ok := ConfigOf(ctx)
	require.True(t, ok)
	assert.Equal(t, Config{AssistantID: "a", Configurable: map[string]any{"k": 1.0}, Context: map[string]any{"c": "x"}, Tags: []string{"t"}}, got)
	assert.Equal(t, "kept", ctx.Value(otherKey{}))

	child, stop := context.WithCancel(ctx)
	defer stop()
	require.NoError(t, child.Err())
	cancel()
	<-child.Done()
	assert.ErrorIs(t, child.Err(), context.Canceled)
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}

func TestWithConfigLeavesARunWithoutConfigAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Equal(t, ctx, withConfig(ctx, RunInput{}))
	_, ok := ConfigOf(ctx)
	assert.False(t, ok)
}

// BenchmarkWithConfig is the run's config on its context: one allocation.
func BenchmarkWithConfig(b *testing.B) {
	ctx := context.Background()
	in := RunInput{AssistantID: "a", Tags: []string{"t"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ConfigOf(withConfig(ctx, in)); !ok {
			b.Fatal("no config")
		}
	}
}
