package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
)

func TestFromReturnsTheStoreWithPutInTheContext(t *testing.T) {
	t.Parallel()
	require.Nil(t, store.From(context.Background()))
	s, err := memory.New()
	require.NoError(t, err)
	ctx := store.With(context.Background(), s)
	require.Same(t, s, store.From(ctx))
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	require.Same(t, s, store.From(child), "a derived context carries it too")
}

func TestNewRefusesAnIndexWithoutEmbedder(t *testing.T) {
	t.Parallel()
	_, err := memory.New(store.WithIndex(store.Index{}))
	require.ErrorContains(t, err, "no Embedder")
}
