package checkpointtest

import (
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// Harness builds the savers the conformance suite tests, in the manner of
// go-cloud's drivertest.Harness. Only New is required.
type Harness struct {
	// New returns a ready saver. It is called once per subtest, possibly
	// from parallel subtests, and registers any cleanup with tb.Cleanup.
	// Savers it returns may share storage: every subtest uses its own
	// random thread ids.
	New func(tb testing.TB) checkpoint.Saver

	// Reopen, if set, returns a second saver on the storage of s, as a
	// restarted process or another worker would open it, and registers
	// its cleanup with tb.Cleanup. It must leave s open: the cases that
	// use it check that what one saver stored the other reads, and that
	// the one-writer-per-thread rule holds across the two. Without
	// Reopen (a backend that keeps nothing outside the process) those
	// cases are skipped.
	Reopen func(tb testing.TB, s checkpoint.Saver) checkpoint.Saver

	// IsLimit, if set, reports whether err is the backend's documented
	// refusal of input beyond its limits (a thread id longer than an
	// index entry holds, a metadata string with U+0000). Cases with such
	// input accept a Put refused with such an error, provided it stored
	// nothing; without IsLimit, that input must round-trip.
	IsLimit func(err error) bool

	// WithClock, if set, returns a saver like New's whose leases read the
	// time from now rather than from a clock of their own (memory's and
	// sqlite's WithLeaseClock). The lease cases then move that clock past
	// an expiry, or keep it short of one, instead of waiting for real
	// time, so a loaded machine cannot change their outcome. Without it
	// (a backend whose leases read the database server's clock) they use
	// real time: expiries they wait for, bounded; ttls no case outlives.
	WithClock func(tb testing.TB, now func() time.Time) checkpoint.Saver
}

// isLimit reports whether err is a refusal the harness documents.
func (h *Harness) isLimit(err error) bool { return h.IsLimit != nil && h.IsLimit(err) }

// test is one conformance test: it gets a fresh saver, and the harness
// when it needs more (Reopen, IsLimit).
type test struct {
	name string
	fn   func(t *testing.T, s checkpoint.Saver)
	fnh  func(t *testing.T, s checkpoint.Saver, h *Harness) // instead of fn
}

// group is a set of tests of one operation.
type group struct {
	name  string
	tests []test
}

// groups lists every conformance test, by operation.
func groups() []group {
	return []group{
		{"Put", putTests},
		{"CompareAndSet", casTests},
		{"Order", orderTests},
		{"PutWrites", writesTests},
		{"Get", getTests},
		{"GetHead", headTests},
		{"List", listTests},
		{"SkipValue", skipTests},
		{"DeleteThread", deleteTests},
		{"CopyThread", copyTests},
		{"Prune", pruneTests},
		{"OwnedVersions", ownedTests},
		{"Context", contextTests},
		{"Identifiers", identifierTests},
		{"Metadata", metadataTests},
		{"Concurrency", concurrencyTests},
		{"Durability", durabilityTests},
		{"Lease", leaseTests},
		{"Fence", fenceTests},
	}
}

// Run runs the conformance suite against the savers newSaver returns. It
// is RunHarness with a Harness of New only: the cases that reopen the
// storage are skipped, and no refusal is accepted as a limit.
func Run(t *testing.T, newSaver func(tb testing.TB) checkpoint.Saver) {
	t.Helper()
	RunHarness(t, Harness{New: newSaver})
}

// RunHarness runs the conformance suite against the savers h builds.
//
// Subtests run in parallel, each with a saver from h.New. Subtests of
// optional capabilities (checkpoint.Copier, checkpoint.Pruner,
// checkpoint.Leaser, checkpoint.HeadGetter) are
// skipped when the saver does not implement them, and those of
// durability when h.Reopen is nil.
func RunHarness(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil {
		t.Fatal("checkpointtest: Harness.New is nil")
	}
	for _, g := range groups() {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range g.tests {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					s := h.New(t)
					if s == nil {
						t.Fatal("checkpointtest: Harness.New returned nil")
					}
					if c.fnh != nil {
						c.fnh(t, s, &h)
						return
					}
					c.fn(t, s)
				})
			}
		})
	}
}
