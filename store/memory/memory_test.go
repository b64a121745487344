package memory_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{New: func(tb testing.TB, opts ...store.Option) *store.Store {
		s, err := memory.New(opts...)
		require.NoError(tb, err)
		return s
	}})
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(tb testing.TB, opts ...store.Option) *store.Store {
		s, err := memory.New(opts...)
		require.NoError(tb, err)
		return s
	})
}
