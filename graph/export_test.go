package graph

// AlwaysSaveInBackground makes every DurabilityAsync save go to the
// background, as inBackground would choose for slow nodes and a slow
// saver: the tests of the background path use it with quick nodes.
func AlwaysSaveInBackground() CompileOption {
	return func(o *compileOptions) { o.alwaysInBackground = true }
}
