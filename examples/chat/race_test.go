//go:build race

package main

// raceEnabled builds the example with the race detector when its tests run
// with it.
const raceEnabled = true
