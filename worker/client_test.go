package worker_test

import (
	"testing"

	"github.com/riverqueue/river"
	"github.com/stategraph/stategraph/worker"
	"github.com/stretchr/testify/assert"
)

func TestEveryRiverConfigOptionApplies(t *testing.T) {
	e := newEnv(t)
	var order []string
	e.client(nil,
		worker.WithRiverConfig(func(*river.Config) { order = append(order, "tracing") }),
		worker.WithRiverConfig(func(*river.Config) { order = append(order, "retention") }))
	assert.Equal(t, []string{"tracing", "retention"}, order, "a second WithRiverConfig must not replace the first")
}
