// Package agenttrace traces the plan-and-execute agent of package nodes
// with package telemetry: Instrument wraps an AgentConfig's model, tools
// and replanner, so that model calls and tool calls are GenAI spans under
// their node's task span and each revision of the plan is an event
// (EventReplan) on the replan task's span.
//
// It is a package of its own so that package telemetry does not import
// package nodes (and langchaingo's provider clients with it).
package agenttrace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/telemetry"
)

// EventReplan is the event a replan task's span gets each time the
// replanner revises the plan (or fails to).
const EventReplan = "stategraph.replan"

// Attribute keys of EventReplan.
const (
	// KeyTrigger is what the revision answers: the trigger's kind
	// (failed, blocked, …).
	KeyTrigger = attribute.Key("stategraph.replan.trigger")
	// KeyTriggerStep is the plan step that triggered it.
	KeyTriggerStep = attribute.Key("stategraph.replan.step")
	// KeyReason is the trigger in words (Trigger.Summary).
	KeyReason = attribute.Key("stategraph.replan.reason")
	// KeyStrategy is the strategy that revised the plan (incremental,
	// partial, full).
	KeyStrategy = attribute.Key("stategraph.replan.strategy")
	// KeyAdded, KeyRemoved, KeyChanged and KeyKept list plan step ids.
	KeyAdded   = attribute.Key("stategraph.replan.added")
	KeyRemoved = attribute.Key("stategraph.replan.removed")
	KeyChanged = attribute.Key("stategraph.replan.changed")
	KeyKept    = attribute.Key("stategraph.replan.kept")
	// KeyError is why no revision was made.
	KeyError = attribute.Key("stategraph.replan.error")
)

// Instrument returns cfg with its Model (when set; opts configure its
// spans), Tools and Replanner (when set) traced by t. A Replanner left
// nil is made by nodes.NewAgent and is not traced: set one
// (nodes.AdaptiveReplanner{…}) to see its revisions.
func Instrument(t *telemetry.Telemetry, cfg nodes.AgentConfig, opts ...telemetry.ModelOption) nodes.AgentConfig {
	if cfg.Model != nil {
		cfg.Model = t.Model(cfg.Model, opts...)
	}
	cfg.Tools = t.Tools(cfg.Tools)
	if cfg.Replanner != nil {
		cfg.Replanner = Replanner(cfg.Replanner)
	}
	return cfg
}

// Replanner returns r with each revision recorded as an EventReplan on
// the span in the call's context (the replan node's task span).
func Replanner(r nodes.Replanner) nodes.Replanner { return replanner{r} }

type replanner struct{ nodes.Replanner }

// Replan implements nodes.Replanner.
func (r replanner) Replan(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
	p, info, err := r.Replanner.Replan(ctx, req)
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return p, info, err
	}
	attrs := []attribute.KeyValue{
		KeyTrigger.String(string(req.Trigger.Kind)), KeyTriggerStep.String(req.Trigger.StepID),
		KeyReason.String(req.Trigger.Summary()),
	}
	if err != nil {
		attrs = append(attrs, KeyError.String(err.Error()))
	} else {
		attrs = append(attrs, KeyStrategy.String(info.Strategy))
		for _, l := range []struct {
			k   attribute.Key
			ids []string
		}{{KeyAdded, info.Added}, {KeyRemoved, info.Removed}, {KeyChanged, info.Changed}, {KeyKept, info.Kept}} {
			if len(l.ids) > 0 {
				attrs = append(attrs, l.k.StringSlice(l.ids))
			}
		}
	}
	span.AddEvent(EventReplan, trace.WithAttributes(attrs...))
	return p, info, err
}
