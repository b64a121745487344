//go:build !unix

package telemetry_test

import "time"

// cpuTime is not measured here: the cpu-ns/step figure reads 0.
func cpuTime() time.Duration { return 0 }
