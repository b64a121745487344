package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/store"
)

// Harness builds the stores the conformance suite tests. Only New is
// required.
type Harness struct {
	// New returns a store over empty storage, built with opts (the suite
	// passes its clock and, for semantic search, an index), and registers
	// its cleanup with tb.Cleanup. It is called once per subtest, possibly
	// from parallel subtests.
	New func(tb testing.TB, opts ...store.Option) *store.Store
	// Reopen, if set, returns a second store over the storage of s, as a
	// restarted process would open it, built with opts. It must leave s
	// open. Without it (a driver that keeps nothing outside the process)
	// the cases that reopen are skipped.
	Reopen func(tb testing.TB, s *store.Store, opts ...store.Option) *store.Store
}

// Clock is a settable clock for store.WithClock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads t until moved.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// t0 is the time every case starts at.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// env is what a case gets: a store on fresh storage, its clock, and the
// harness.
type env struct {
	s     *store.Store
	clock *Clock
	h     *Harness
	ctx   context.Context
}

type test struct {
	name string
	// index makes the store with an index over the "text" field (and
	// env.emb the embedder).
	index bool
	fn    func(t *testing.T, e *env)
}

// Run runs the conformance suite against the stores h builds.
func Run(t *testing.T, h Harness) {
	t.Helper()
	groups := []struct {
		name  string
		tests []test
	}{
		{"PutGet", putGetTests},
		{"Search", searchTests},
		{"Semantic", semanticTests},
		{"ListNamespaces", namespaceTests},
		{"TTL", ttlTests},
		{"Reopen", reopenTests},
		{"Order", orderTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					e := &env{clock: NewClock(t0), h: &h, ctx: context.Background()}
					e.s = h.New(t, e.options(tc.index)...)
					tc.fn(t, e)
				})
			}
		})
	}
}

// options are the options of the stores of a case.
func (e *env) options(index bool) []store.Option {
	opts := []store.Option{store.WithClock(e.clock.Now)}
	if index {
		opts = append(opts, store.WithIndex(store.Index{Embedder: &Embedder{}, Fields: []string{"text"}}))
	}
	return opts
}
