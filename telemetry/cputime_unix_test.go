//go:build unix

package telemetry_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system, all
// threads): on a loaded machine it measures the work a benchmark does
// better than the wall clock, which counts the time other processes ran.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
