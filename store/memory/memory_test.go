package memory_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	var drivers sync.Map // *store.Store → its *memory.Driver
	storetest.Run(t, storetest.Harness{
		New: func(tb testing.TB, opts ...store.Option) *store.Store {
			d := memory.NewDriver()
			s, err := store.New(d, opts...)
			require.NoError(tb, err)
			drivers.Store(s, d)
			return s
		},
		// A second handle in this process: another Store on the driver.
		Reopen: func(tb testing.TB, s *store.Store, opts ...store.Option) *store.Store {
			d, ok := drivers.Load(s)
			require.True(tb, ok, "a store of New")
			again, err := store.New(d.(*memory.Driver), opts...)
			require.NoError(tb, err)
			return again
		},
	})
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(tb testing.TB, opts ...store.Option) *store.Store {
		s, err := memory.New(opts...)
		require.NoError(tb, err)
		return s
	})
}
