package replay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// DivergenceKind says how a replay departed from its recording.
type DivergenceKind string

// The kinds of divergence, in the order Run reports divergences of one
// step.
const (
	// ChangedCall: a call's request (prompt, tool input) or tool is not
	// the recorded one.
	ChangedCall DivergenceKind = "changed_call"
	// MissingCall: the replay made a call the recording does not have.
	MissingCall DivergenceKind = "missing_call"
	// UnmadeCall: the recording has a call the replay did not make.
	UnmadeCall DivergenceKind = "unmade_call"
	// ChangedNodes: a step ran other nodes than the recorded step.
	ChangedNodes DivergenceKind = "changed_nodes"
	// ChangedState: a step left another state than the recorded step.
	ChangedState DivergenceKind = "changed_state"
	// MissingStep and ExtraStep: the replay stopped before the recorded
	// thread did, or went on after it.
	MissingStep DivergenceKind = "missing_step"
	ExtraStep   DivergenceKind = "extra_step"
)

// Divergence is one place where a replay departed from its recording.
type Divergence struct {
	Kind DivergenceKind
	// Step and Node locate it (Node lists the step's nodes for a step's
	// divergence).
	Step    int
	Node    string
	Message string
	// Diff is a line diff, recorded ("-") to replayed ("+"), of the
	// requests (indented JSON) or of the step's state.
	Diff string
}

// String is the message followed by the diff.
func (d Divergence) String() string { return d.Message + "\n" + d.Diff }

// Report is the outcome of Run.
type Report[S any] struct {
	Thread    string
	Recording *Recording
	// Output is the replay's final state.
	Output S
	// Divergences are ordered by step, a step's calls before its state;
	// empty when the replay matched the recording.
	Divergences []Divergence
}

// First returns the first divergence, or nil when there is none.
func (r *Report[S]) First() *Divergence {
	if len(r.Divergences) == 0 {
		return nil
	}
	return &r.Divergences[0]
}

// Option configures Run.
type Option func(*options)

type options struct {
	live      llms.Model
	liveTools bool
	normalize any    // func(*S) of Run's S
	from      string // WithFrom: the checkpoint the replay starts from
}

// WithNormalize has Run apply f to the recorded and the replayed state of
// every step before it compares them: clear what differs between two runs
// by nature (wall-clock times, durations), so that only a real divergence
// shows. f's S must be the graph's state type: Run fails naming both
// otherwise.
func WithNormalize[S any](f func(*S)) Option { return func(o *options) { o.normalize = f } }

// WithLiveModel answers the model calls the recording does not have (a
// changed prompt, an extra call) with m: a live model, or a scripted one.
// Without it such a call fails with ErrUnrecorded and the replay stops
// there.
func WithLiveModel(m llms.Model) Option { return func(o *options) { o.live = m } }

// WithLiveTools runs the tools for the tool calls the recording does not
// have. Without it such a call fails with ErrUnrecorded.
func WithLiveTools() Option { return func(o *options) { o.liveTools = true } }

// Run replays thread, recorded in saver, with g: it compiles g on a fresh
// in-memory checkpointer, runs it on each input the recorded thread was
// given, in order, with the model and tool calls of g's wrapped models
// and tools (Model, Tool) answered from the recording, and compares the
// calls and every step's nodes and state with the recorded thread. g may
// differ from the graph that recorded (a changed prompt, node or tool): the
// report says where the replay first departed from the recording.
//
// The recorded thread is read through saver only (an encrypted one through
// its encrypt.Wrap); nothing is written to it. Only the root graph's
// calls are recorded and compared. A thread that stopped at interrupts and
// was resumed is replayed run by run: each resume is given the value the
// recorded one was (graph.Resume), read from the interrupted checkpoint;
// a stop where more than one task was resumed is refused (an error says
// so), and a resume without a value (a static interrupt) is replayed as
// one. An interrupt that ends a run of the replay is not an error. An error of
// the replay's run that a divergence explains (ErrUnrecorded) ends the
// replay and is not returned.
func Run[S any](ctx context.Context, g *graph.StateGraph[S], saver checkpoint.Saver, thread string, opts ...Option) (*Report[S], error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rec, err := Load(ctx, saver, thread)
	if err != nil {
		return nil, err
	}
	var normalize func(*S)
	if o.normalize != nil {
		f, ok := o.normalize.(func(*S))
		if !ok {
			var s S
			return nil, fmt.Errorf("replay: WithNormalize takes a %T, the graph's state is %T", o.normalize, &s)
		}
		normalize = f
	}
	recorded, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	want, err := oldestFirst(ctx, recorded, thread)
	if err != nil {
		return nil, err
	}
	resumes, err := resumesOf(ctx, saver, thread)
	if err != nil {
		return nil, err
	}
	runs, err := runsOf(recorded.Schema(), want, resumes, thread)
	if err != nil {
		return nil, err
	}
	mem := memory.New()
	all, rec := rec, rec
	if o.from != "" {
		if runs, rec, err = startFrom(ctx, saver, mem, want, runs, rec, thread, o.from); err != nil {
			return nil, err
		}
	}
	fresh, err := g.Compile(graph.WithCheckpointer(mem))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	p := newPlayer(rec, &o)
	pctx := context.WithValue(ctx, playerKey{}, p)
	rep := &Report[S]{Thread: thread, Recording: all}
	for _, r := range runs {
		opts := []graph.RunOption{graph.WithThread(thread)}
		if r.resume && r.value != nil {
			opts = append(opts, graph.Resume(r.value))
		}
		out, err := fresh.Invoke(pctx, r.input, opts...)
		rep.Output = out
		if errors.Is(err, ErrUnrecorded) {
			break
		}
		if err != nil && !errors.Is(err, graph.ErrInterrupted) {
			return nil, fmt.Errorf("replay: thread %q: %w", thread, err)
		}
	}
	got, err := oldestFirst(ctx, fresh, thread)
	if err != nil {
		return nil, err
	}
	rep.Divergences = append(p.div, p.unused()...)
	if d := firstStepDivergence(want, got, normalize); d != nil {
		rep.Divergences = append(rep.Divergences, *d)
	}
	order := []DivergenceKind{ChangedCall, MissingCall, UnmadeCall, ChangedNodes, ChangedState, MissingStep, ExtraStep}
	slices.SortStableFunc(rep.Divergences, func(a, b Divergence) int {
		return cmp.Or(cmp.Compare(a.Step, b.Step), cmp.Compare(slices.Index(order, a.Kind), slices.Index(order, b.Kind)))
	})
	return rep, nil
}

// oldestFirst returns the thread's snapshots, oldest first.
func oldestFirst[S any](ctx context.Context, c *graph.Compiled[S], thread string) ([]*graph.Snapshot[S], error) {
	var out []*graph.Snapshot[S]
	for s, err := range c.History(ctx, graph.WithThread(thread)) {
		if err != nil {
			return nil, fmt.Errorf("replay: history of thread %q: %w", thread, err)
		}
		out = append(out, s)
	}
	slices.Reverse(out)
	return out, nil
}

// runOf is one run of the recorded thread: an input, or a resume (with
// value when the interrupt was answered with one).
type runOf[S any] struct {
	input  state.Update[S]
	resume bool
	value  any
	at     int // the index of the checkpoint it starts from
}

// resumesOf returns the values each checkpoint of the thread's root
// namespace was resumed with, by checkpoint and task: the
// graph.AnswersChannel writes of the tasks that finished after their
// interrupts, each the JSON list of a task's answers in order.
func resumesOf(ctx context.Context, saver checkpoint.Saver, thread string) (map[string]map[string][]json.RawMessage, error) {
	out := map[string]map[string][]json.RawMessage{}
	for tup, err := range saver.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		if err != nil {
			return nil, fmt.Errorf("replay: read thread %q: %w", thread, err)
		}
		for _, w := range tup.PendingWrites {
			if w.Channel != graph.AnswersChannel {
				continue
			}
			var vs []json.RawMessage
			if err := json.Unmarshal(w.Value, &vs); err != nil {
				return nil, fmt.Errorf("replay: thread %q checkpoint %s task %s: resume values: %w: %w", thread, tup.Config.CheckpointID, w.TaskID, checkpoint.ErrCorrupt, err)
			}
			if out[tup.Config.CheckpointID] == nil {
				out[tup.Config.CheckpointID] = map[string][]json.RawMessage{}
			}
			out[tup.Config.CheckpointID][w.TaskID] = vs
		}
	}
	return out, nil
}

// runsOf returns the runs the recorded thread was given, in order: for
// each input checkpoint, the writes that take its state to the next one's;
// for each checkpoint that stopped at interrupts and was continued, a
// resume per value it was answered with (one without a value when there
// is none).
func runsOf[S any](schema *state.Schema[S], snaps []*graph.Snapshot[S], resumes map[string]map[string][]json.RawMessage, thread string) ([]runOf[S], error) {
	var runs []runOf[S]
	inputs := 0
	for i, s := range snaps {
		switch s.Metadata.Source {
		case checkpoint.SourceInput:
			if i+1 == len(snaps) {
				return nil, fmt.Errorf("replay: thread %q: its last input (step %d) was never applied", thread, s.Metadata.Step)
			}
			runs = append(runs, runOf[S]{input: state.Writes(schema.Diff(&s.Values, &snaps[i+1].Values)...), at: i})
			inputs++
		case checkpoint.SourceUpdate, checkpoint.SourceFork:
			return nil, fmt.Errorf("replay: thread %q has a state update or fork at step %d: replaying it is not supported", thread, s.Metadata.Step)
		}
		if len(s.Interrupts) == 0 || i+1 == len(snaps) || snaps[i+1].Metadata.Source == checkpoint.SourceInput {
			continue // not stopped, or not continued by a resume
		}
		byTask := resumes[s.Config.CheckpointID]
		switch len(byTask) {
		case 0:
			runs = append(runs, runOf[S]{resume: true, at: i})
		case 1:
			for _, vs := range byTask {
				for _, v := range vs {
					runs = append(runs, runOf[S]{resume: true, value: v, at: i})
				}
			}
		default:
			return nil, fmt.Errorf("replay: thread %q: %d tasks were resumed at step %d: replaying the answers of several interrupts at once is not supported", thread, len(byTask), s.Metadata.Step)
		}
	}
	if inputs == 0 {
		return nil, fmt.Errorf("replay: thread %q has no input to replay", thread)
	}
	return runs, nil
}

// firstStepDivergence compares the recorded and replayed checkpoints in
// order and returns the first difference.
func firstStepDivergence[S any](want, got []*graph.Snapshot[S], normalize func(*S)) *Divergence {
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(got):
			w := want[i]
			return &Divergence{Kind: MissingStep, Step: w.Metadata.Step, Node: strings.Join(w.Metadata.Nodes, ","),
				Message: fmt.Sprintf("the replay stopped before step %d (%s)", w.Metadata.Step, describeStep(w))}
		case i >= len(want):
			g := got[i]
			return &Divergence{Kind: ExtraStep, Step: g.Metadata.Step, Node: strings.Join(g.Metadata.Nodes, ","),
				Message: fmt.Sprintf("the replay went on to step %d (%s), after the recorded thread's end", g.Metadata.Step, describeStep(g))}
		}
		w, g := want[i], got[i]
		if w.Metadata.Step != g.Metadata.Step || w.Metadata.Source != g.Metadata.Source || !slices.Equal(w.Metadata.Nodes, g.Metadata.Nodes) {
			return &Divergence{Kind: ChangedNodes, Step: w.Metadata.Step, Node: strings.Join(g.Metadata.Nodes, ","),
				Message: fmt.Sprintf("step %d: recorded %s, replayed %s", w.Metadata.Step, describeStep(w), describeStep(g)),
				Diff:    diffLines(describeStep(w), describeStep(g))}
		}
		wv, gv := w.Values, g.Values
		if normalize != nil {
			normalize(&wv)
			normalize(&gv)
		}
		a, _ := json.MarshalIndent(wv, "", "  ")
		b, _ := json.MarshalIndent(gv, "", "  ")
		if string(a) != string(b) {
			return &Divergence{Kind: ChangedState, Step: w.Metadata.Step, Node: strings.Join(g.Metadata.Nodes, ","),
				Message: fmt.Sprintf("step %d (%s) left another state", w.Metadata.Step, describeStep(g)),
				Diff:    diffLines(string(a), string(b))}
		}
	}
	return nil
}

func describeStep[S any](s *graph.Snapshot[S]) string {
	if len(s.Metadata.Nodes) == 0 {
		return string(s.Metadata.Source)
	}
	return string(s.Metadata.Source) + " of " + strings.Join(s.Metadata.Nodes, ", ")
}
