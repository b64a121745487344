package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metric names. Durations are in seconds, sizes in bytes; docs/observability.md
// lists each one's attributes.
const (
	MetricRunsStarted        = "stategraph.runs.started"
	MetricRunsEnded          = "stategraph.runs.ended"
	MetricRunDuration        = "stategraph.run.duration"
	MetricStepDuration       = "stategraph.step.duration"
	MetricTaskDuration       = "stategraph.task.duration"
	MetricTaskRetries        = "stategraph.task.retries"
	MetricCheckpointDuration = "stategraph.checkpoint.duration"
	MetricCheckpointSize     = "stategraph.checkpoint.size"
	MetricModelCalls         = "stategraph.model.calls"
	MetricModelTokens        = "gen_ai.client.token.usage"
	MetricModelDuration      = "gen_ai.client.operation.duration"
	MetricToolCalls          = "stategraph.tool.calls"
	MetricToolDuration       = "stategraph.tool.duration"
)

// instruments are the metrics a Telemetry records.
type instruments struct {
	runsStarted, runsEnded, taskRetries, modelCalls, toolCalls metric.Int64Counter
	runDur, stepDur, taskDur, saveDur, modelDur, toolDur       metric.Float64Histogram
	saveSize, tokens                                           metric.Int64Histogram
}

// latency buckets, in seconds: from 10 µs (a step of a function call) to
// a minute (a model call).
var latency = metric.WithExplicitBucketBoundaries(
	0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60)

func newInstruments(m metric.Meter) instruments {
	var in instruments
	// The API's instrument constructors never fail in a way that leaves a
	// nil instrument: on an error they return a no-op one.
	in.runsStarted, _ = m.Int64Counter(MetricRunsStarted, metric.WithUnit("{run}"), metric.WithDescription("Runs started (calls, and subgraphs' runs)."))
	in.runsEnded, _ = m.Int64Counter(MetricRunsEnded, metric.WithUnit("{run}"), metric.WithDescription("Runs ended, by outcome."))
	in.runDur, _ = m.Float64Histogram(MetricRunDuration, metric.WithUnit("s"), metric.WithDescription("How long runs took, by outcome."), latency)
	in.stepDur, _ = m.Float64Histogram(MetricStepDuration, metric.WithUnit("s"), metric.WithDescription("How long supersteps took: their tasks, writes and checkpoint."), latency)
	in.taskDur, _ = m.Float64Histogram(MetricTaskDuration, metric.WithUnit("s"), metric.WithDescription("How long nodes took, retries included, by node and outcome."), latency)
	in.taskRetries, _ = m.Int64Counter(MetricTaskRetries, metric.WithUnit("{retry}"), metric.WithDescription("Retries of nodes (attempts after the first), by node."))
	in.saveDur, _ = m.Float64Histogram(MetricCheckpointDuration, metric.WithUnit("s"), metric.WithDescription("How long checkpoint writes took in the saver."), latency)
	in.saveSize, _ = m.Int64Histogram(MetricCheckpointSize, metric.WithUnit("By"), metric.WithDescription("Encoded bytes a checkpoint write stores."),
		metric.WithExplicitBucketBoundaries(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304))
	in.modelCalls, _ = m.Int64Counter(MetricModelCalls, metric.WithUnit("{call}"), metric.WithDescription("Model calls, by model and outcome."))
	in.tokens, _ = m.Int64Histogram(MetricModelTokens, metric.WithUnit("{token}"), metric.WithDescription("Tokens a model call used, by gen_ai.token.type (input, output)."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576))
	in.modelDur, _ = m.Float64Histogram(MetricModelDuration, metric.WithUnit("s"), metric.WithDescription("How long model calls took."), latency)
	in.toolCalls, _ = m.Int64Counter(MetricToolCalls, metric.WithUnit("{call}"), metric.WithDescription("Tool calls, by tool and outcome (success, error)."))
	in.toolDur, _ = m.Float64Histogram(MetricToolDuration, metric.WithUnit("s"), metric.WithDescription("How long tool calls took."), latency)
	return in
}

// maxCached bounds each attribute cache; past it, sets are built per
// measurement (graph, node, saver and source names are few, so it is
// only a guard against names made per run).
const maxCached = 4096

// attrCache keeps the measurement option of each attribute combination,
// so that recording a step's or a task's metrics builds no attribute set.
type attrCache[K comparable] struct {
	mu sync.RWMutex
	m  map[K]metric.MeasurementOption
}

// get returns the option for k, made from attrs the first time.
func (c *attrCache[K]) get(k K, attrs func() []attribute.KeyValue) metric.MeasurementOption {
	c.mu.RLock()
	o, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return o
	}
	o = metric.WithAttributeSet(attribute.NewSet(attrs()...))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[K]metric.MeasurementOption{}
	}
	if len(c.m) < maxCached {
		c.m[k] = o
	}
	return o
}

type nodeKey struct{ graph, node, outcome string }

type saveKey struct{ saver, source string }

// caches are the attribute caches of a Telemetry's metrics.
type caches struct {
	step    attrCache[string]
	task    attrCache[nodeKey]
	retries attrCache[nodeKey]
	save    attrCache[saveKey]
	size    attrCache[string]
}
