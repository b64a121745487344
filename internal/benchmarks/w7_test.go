package benchmarks_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// BenchmarkW7 is W7 from a new process each time: coldopen (this
// package's program) opens a SQLite database holding a 2,002-checkpoint
// thread and reads its latest state, b.N times, each in a process of its
// own. It reports the medians of what each process measured from the
// start of its main: open-µs (sqlite.Open), total-µs (open, compile,
// State) and cpu-µs (the process's user and system time over that span,
// steadier than wall time on a loaded machine). ns/op is the whole
// process, exec and exit included. The in-process figure, a fresh Saver
// each iteration, is BenchmarkSQLite's ColdResume.
func BenchmarkW7(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "coldopen")
	if out, err := exec.Command("go", "build", "-o", bin, "./coldopen").CombinedOutput(); err != nil {
		b.Fatalf("build coldopen: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "w7.db")
	if out, err := exec.Command(bin, "-fill", db).CombinedOutput(); err != nil {
		b.Fatalf("fill: %v\n%s", err, out)
	}
	var open, total, cpu []float64
	for b.Loop() {
		out, err := exec.Command(bin, db).Output()
		if err != nil {
			b.Fatalf("coldopen: %v", err)
		}
		var o, c, s, t, u float64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "open %g compile %g state %g total %g cpu %g", &o, &c, &s, &t, &u); err != nil {
			b.Fatalf("coldopen printed %q: %v", out, err)
		}
		open, total, cpu = append(open, o), append(total, t), append(cpu, u)
	}
	b.ReportMetric(median(open), "open-µs")
	b.ReportMetric(median(total), "total-µs")
	b.ReportMetric(median(cpu), "cpu-µs")
}

// median is the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
