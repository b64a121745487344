package graph

import "time"

// AlwaysSaveInBackground makes every DurabilityAsync save go to the
// background, as inBackground would choose for slow nodes and a slow
// saver: the tests of the background path use it with quick nodes.
func AlwaysSaveInBackground() CompileOption {
	return func(o *compileOptions) { o.alwaysInBackground = true }
}

// WithClock makes DurabilityAsync time nodes and saves with now: a clock
// that never moves times everything as quick, whatever the machine's load.
func WithClock(now func() time.Time) CompileOption {
	return func(o *compileOptions) { o.now = now }
}
