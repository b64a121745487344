package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
)

// Config is what a run of the server gives its graph beside its input:
// LangGraph's config (configurable, tags) and runtime context, the
// assistant's merged with the run's (the run's keys win). A node reads it
// with ConfigOf, as a LangGraph node reads config["configurable"] and
// runtime.context. On a server with workers it travels with the run to the
// process that executes it.
type Config struct {
	// AssistantID is the assistant the run was created for.
	AssistantID string
	// Configurable is config.configurable: the assistant's, then the
	// run's.
	Configurable map[string]any
	// Context is the runtime context: the assistant's context, then the
	// run's.
	Context map[string]any
	// Tags are the assistant's config tags, then the run's.
	Tags []string
}

type configKey struct{}

// ConfigOf returns the Config of the run whose node is running in ctx,
// and false outside a run of the server.
func ConfigOf(ctx context.Context) (Config, bool) {
	c, ok := ctx.Value(configKey{}).(*Config)
	if !ok {
		return Config{}, false
	}
	return *c, true
}

// withConfig adds a run's Config to ctx, when it has one.
func withConfig(ctx context.Context, in RunInput) context.Context {
	if in.AssistantID == "" && in.Configurable == nil && in.Context == nil && in.Tags == nil {
		return ctx
	}
	return &configCtx{Context: ctx, c: Config{AssistantID: in.AssistantID, Configurable: in.Configurable, Context: in.Context, Tags: in.Tags}}
}

// configCtx is ctx carrying a run's Config: one allocation a run, where
// context.WithValue with a *Config took two (issue #32's overhead, see
// docs/performance.md). Every other key, Done, Err and Deadline are the
// parent's, so cancellation propagates as through a valueCtx.
type configCtx struct {
	context.Context
	c Config
}

// Value returns the run's *Config for configKey and asks the parent for
// every other key.
func (c *configCtx) Value(key any) any {
	if key == (configKey{}) {
		return &c.c
	}
	return c.Context.Value(key)
}

// Keys of config.configurable that select what a run reads, not what its
// nodes are given.
var selectorKeys = []string{"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map"}

// mergeRunConfig sets in's config and context from the assistant's and
// the run request's, as LangGraph merges them: configurable and context
// key by key, the run's last; tags the assistant's then the run's; the
// run's recursion limit, else the assistant's.
func mergeRunConfig(in *RunInput, a *assistant, cfg *runConfig, runContext json.RawMessage) error {
	in.AssistantID = a.ID
	conf := maps.Clone(a.Config.Configurable)
	tags := slices.Clone(a.Config.Tags)
	in.RecursionLimit = a.Config.RecursionLimit
	if cfg != nil {
		if conf == nil && len(cfg.Configurable) > 0 {
			conf = map[string]any{}
		}
		maps.Copy(conf, cfg.Configurable)
		tags = append(tags, cfg.Tags...)
		if cfg.RecursionLimit > 0 {
			in.RecursionLimit = cfg.RecursionLimit
		}
	}
	for _, k := range selectorKeys {
		delete(conf, k)
	}
	if len(conf) > 0 {
		in.Configurable = conf
	}
	in.Tags = tags
	cx := maps.Clone(a.Context)
	if !isNull(runContext) {
		var m map[string]any
		if err := json.Unmarshal(runContext, &m); err != nil {
			return &InputError{Field: "context", Err: errors.New("want a JSON object")}
		}
		if cx == nil {
			cx = map[string]any{}
		}
		maps.Copy(cx, m)
	}
	if len(cx) > 0 {
		in.Context = cx
	}
	return nil
}
