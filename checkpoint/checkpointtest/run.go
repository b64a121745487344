package checkpointtest

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
)

// test is one conformance test: it gets a fresh saver.
type test struct {
	name string
	fn   func(t *testing.T, s checkpoint.Saver)
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
		{"List", listTests},
		{"DeleteThread", deleteTests},
		{"CopyThread", copyTests},
		{"Prune", pruneTests},
		{"Context", contextTests},
	}
}

// Run runs the conformance suite against the savers newSaver returns.
//
// newSaver is called once per subtest, possibly from parallel subtests; it
// returns a ready saver and registers any cleanup with tb.Cleanup. Savers
// it returns may share storage: every subtest uses its own random thread
// ids. Subtests of optional capabilities (checkpoint.Copier,
// checkpoint.Pruner) are skipped when the saver does not implement them.
func Run(t *testing.T, newSaver func(tb testing.TB) checkpoint.Saver) {
	t.Helper()
	for _, g := range groups() {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range g.tests {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					s := newSaver(t)
					if s == nil {
						t.Fatal("checkpointtest: newSaver returned nil")
					}
					c.fn(t, s)
				})
			}
		})
	}
}
