package servegraphs

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/replay"
)

// Recorded records the model and tool calls of planexecute and chat with
// their threads (replay.Model, replay.Tool), for Replay and `stategraph
// replay`.
func Recorded() Option { return func(o *options) { o.record = true } }

// recording wraps the chat model and tools and the plan-and-execute
// agent's tools in the replay recorders.
func recording(model llms.Model, chatTools []tools.Tool, cfg nodes.AgentConfig) (llms.Model, []tools.Tool, nodes.AgentConfig) {
	rec := func(ts []tools.Tool) []tools.Tool {
		out := make([]tools.Tool, len(ts))
		for i, t := range ts {
			out[i] = replay.Tool(t)
		}
		return out
	}
	cfg.Tools = rec(cfg.Tools)
	return replay.Model(model), rec(chatTools), cfg
}

// Replayable are the graphs Replay re-runs.
var Replayable = []string{"chat", "planexecute"}

// Replay re-runs thread of the served graph name (one of Replayable),
// recorded in saver with Recorded, offline: every model and tool call is
// answered from the recording (replay.Run). It returns the divergences,
// earliest first (none: the replay matched). The plan-and-execute agent's
// wall-clock times and durations are not compared.
func Replay(ctx context.Context, saver checkpoint.Saver, name, thread string, opts ...replay.Option) ([]replay.Divergence, error) {
	switch name {
	case "chat":
		model, ts, _ := recording(chatdemo.Scripted{}, chatdemo.Tools(nil), nodes.AgentConfig{})
		rep, err := replay.Run(ctx, chatdemo.AgentWithTools(model, ts).Graph, saver, thread, opts...)
		if err != nil {
			return nil, err
		}
		return rep.Divergences, nil
	case "planexecute":
		_, _, cfg := recording(nil, nil, delivery.New().AgentConfig())
		a, err := nodes.NewAgent(cfg, nodes.WithTokenStreaming())
		if err != nil {
			return nil, fmt.Errorf("planexecute: %w", err)
		}
		rep, err := replay.Run(ctx, a.Graph(), saver, thread, append([]replay.Option{replay.WithNormalize(normalizeAgent)}, opts...)...)
		if err != nil {
			return nil, err
		}
		return rep.Divergences, nil
	}
	return nil, fmt.Errorf("servegraphs: no graph %q to replay (replayable: %v)", name, slices.Clone(Replayable))
}

// normalizeAgent clears the wall-clock times and durations of a
// plan-and-execute state.
func normalizeAgent(s *nodes.AgentState) {
	s.Usage.Wall, s.Usage.Start = 0, time.Time{}
	for i := range s.PastSteps {
		s.PastSteps[i].Start, s.PastSteps[i].End = time.Time{}, time.Time{}
	}
	for i := range s.Audit {
		s.Audit[i].Start, s.Audit[i].End, s.Audit[i].Duration = time.Time{}, time.Time{}, 0
	}
}
