package nodes

import "context"

// durableStep stands in for graph.Durable until it is merged: it runs fn.
func durableStep(ctx context.Context, _ string, fn func(context.Context) (stepRun, error)) (stepRun, error) {
	return fn(ctx)
}
