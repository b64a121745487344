package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// ModelFallback tries Models in order when a model call fails (an error
// from the model: a 500, a timeout, a refusal), LangChain's
// modelFallbackMiddleware: the call's own model first, then each of
// Models, until one answers. Each move to the next model is a Step
// ("fallback", "fell back"). When every model fails, the error joins
// their errors, each naming its model's position. A cancelled run is not
// retried on another model.
type ModelFallback struct {
	Base
	// Models are tried in order after the call's model.
	Models []llms.Model
}

// WrapModel calls next with each model in turn until one answers.
func (f ModelFallback) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	models := append([]llms.Model{call.Model}, f.Models...)
	var errs []error
	var last error
	for i, m := range models {
		if i > 0 {
			Record(ctx, Step{Middleware: "fallback", Action: "fell back",
				Detail: fmt.Sprintf("model %d of %d failed (%v); trying model %d", i, len(models), last, i+1)})
		}
		c := *call
		c.Model = m
		resp, err := next(ctx, &c)
		call.writes = c.writes
		if err == nil {
			return resp, nil
		}
		last = err
		errs = append(errs, fmt.Errorf("model %d of %d: %w", i+1, len(models), err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
