//go:build race

package clitest

// raceEnabled says the test binary runs with the race detector.
const raceEnabled = true
