package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// InputFunc turns a run's JSON input into the update the graph applies to
// its thread. JSONInput makes one from a typed function.
type InputFunc[S any] func(input json.RawMessage) (state.Update[S], error)

// JSONInput returns an InputFunc that decodes the JSON input into an I
// and hands it to f, which builds the update with the schema's typed
// writes:
//
//	worker.JSONInput(func(in struct{ Topic string }) (state.Update[Essay], error) {
//		return state.Writes(topic.Set(in.Topic)), nil
//	})
func JSONInput[S, I any](f func(I) (state.Update[S], error)) InputFunc[S] {
	return func(data json.RawMessage) (state.Update[S], error) {
		var in I
		if err := json.Unmarshal(data, &in); err != nil {
			return state.Update[S]{}, fmt.Errorf("decode input as %T: %w", in, err)
		}
		return f(in)
	}
}

// GraphOption configures a registered graph.
type GraphOption[S any] func(*entry[S])

// WithOutput replaces encoding/json of the final state as a run's Result:
// f returns what is stored, which is then encoded with encoding/json.
func WithOutput[S any](f func(S) (any, error)) GraphOption[S] {
	return func(e *entry[S]) { e.output = f }
}

// Registry holds the compiled graphs workers can run, by name. It is safe
// for concurrent use. Every worker process serving a queue must register
// every graph whose runs are enqueued on it.
type Registry struct {
	mu     sync.RWMutex
	graphs map[string]runner
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{graphs: map[string]runner{}} }

// Register adds a compiled graph under name. The graph must be compiled
// with a checkpointer on the database the workers use (a
// checkpoint/postgres Saver), since a run resumed by another worker reads
// the thread from it. input turns a run's JSON input into the graph's
// update. The final state becomes the run's Result as JSON (see
// WithOutput). Register panics if name is empty or taken, as
// river.AddWorker does: registration is static configuration.
func Register[S any](r *Registry, name string, g *graph.Compiled[S], input InputFunc[S], opts ...GraphOption[S]) {
	if name == "" {
		panic("worker: Register: empty graph name")
	}
	if g == nil || input == nil {
		panic(fmt.Sprintf("worker: Register %q: nil graph or input function", name))
	}
	e := &entry[S]{g: g, input: input}
	for _, o := range opts {
		o(e)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.graphs == nil {
		r.graphs = map[string]runner{}
	}
	if _, ok := r.graphs[name]; ok {
		panic(fmt.Sprintf("worker: Register: graph %q is already registered", name))
	}
	r.graphs[name] = e
}

// Names returns the registered graph names, in no particular order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.graphs))
	for n := range r.graphs {
		names = append(names, n)
	}
	return names
}

func (r *Registry) lookup(name string) runner {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.graphs[name]
}

// runner is a registered graph with its state type erased.
type runner interface {
	run(ctx context.Context, req runRequest) (runResult, error)
}

// runRequest is one execution of a run.
type runRequest struct {
	thread, runID string
	input         json.RawMessage // nil: continue the thread
	resume        json.RawMessage // nil: no resume value
	resumeByID    map[string]json.RawMessage
	metadata      map[string]any
	limit         int
	// retry: an earlier execution of the run got the thread, so it may
	// have applied the input or the resume values already.
	retry bool
	// answers is resume, pinned by an earlier execution to the interrupt
	// it answered; pin stores such a pinning.
	answers map[string]json.RawMessage
	pin     func(ctx context.Context, answers map[string]json.RawMessage) error
	// checkpoint is called with each checkpoint the run saves.
	checkpoint func(checkpoint.Config, checkpoint.Metadata)
	// from, when set, is where a Rollback run forks the thread: a
	// checkpoint id, or "" to delete the thread and start afresh.
	from  *string
	saver checkpoint.Saver
	// payload is the request's Payload, for a RunFunc.
	payload json.RawMessage
	attempt int
}

// runResult is how an execution ended without error.
type runResult struct {
	output     json.RawMessage
	interrupts []graph.Interruption
	// ended, when set, is called once the worker recorded how the
	// execution ended (even with an error).
	ended func(context.Context, Status)
}

// errInput marks an input the graph's InputFunc refused: permanent.
var errInput = errors.New("worker: bad input")

type entry[S any] struct {
	g      *graph.Compiled[S]
	input  InputFunc[S]
	output func(S) (any, error)
}

func (e *entry[S]) run(ctx context.Context, req runRequest) (runResult, error) {
	opts := []graph.RunOption{
		graph.WithThread(req.thread),
		graph.WithRunID(req.runID),
		graph.StreamModes(graph.Values, graph.Checkpoints, graph.Interrupts),
	}
	if req.metadata != nil {
		opts = append(opts, graph.WithMetadata(req.metadata))
	}
	if req.limit > 0 {
		opts = append(opts, graph.WithRecursionLimit(req.limit))
	}
	fresh := true
	if req.retry {
		// An earlier execution saved a checkpoint of this run: it applied
		// the input (or consumed the resume values), so continue the
		// thread instead of applying them twice.
		started, err := e.started(ctx, req)
		if err != nil {
			return runResult{}, err
		}
		fresh = !started
	}
	var input state.Update[S]
	if fresh && req.from != nil {
		if *req.from == "" {
			if err := req.saver.DeleteThread(ctx, req.thread); err != nil {
				return runResult{}, fmt.Errorf("worker: roll back thread %q: %w", req.thread, err)
			}
		} else {
			opts = append(opts, graph.WithCheckpoint(*req.from))
		}
	}
	if fresh {
		if len(req.input) > 0 {
			upd, err := callSafely(func() (state.Update[S], error) { return e.input(req.input) })
			if err != nil {
				return runResult{}, fmt.Errorf("%w: graph input for thread %q: %w", errInput, req.thread, err)
			}
			input = upd
		}
		resumeOpts, err := e.answers(ctx, req)
		if err != nil {
			return runResult{}, err
		}
		opts = append(opts, resumeOpts...)
	}
	var (
		final S
		res   runResult
	)
	for ev, err := range e.g.Stream(ctx, input, opts...) {
		if err != nil {
			return runResult{}, err
		}
		switch ev.Mode {
		case graph.Values:
			final = ev.State
		case graph.Checkpoints:
			if req.checkpoint != nil && ev.Checkpoint != nil && ev.Metadata != nil {
				req.checkpoint(*ev.Checkpoint, *ev.Metadata)
			}
		case graph.Interrupts:
			res.interrupts = ev.Interrupts
		}
	}
	var out any = final
	if e.output != nil {
		v, err := callSafely(func() (any, error) { return e.output(final) })
		if err != nil {
			return runResult{}, fmt.Errorf("worker: encode the result of thread %q: %w", req.thread, err)
		}
		out = v
	}
	data, err := json.Marshal(out)
	if err != nil {
		return runResult{}, fmt.Errorf("worker: encode the result of thread %q: %w", req.thread, err)
	}
	res.output = data
	return res, nil
}

// answers returns the resume options of a run that has not saved a
// checkpoint yet. A positional answer is pinned, before it is used, to the
// one interrupt pending now, so that a retry answers that interrupt and no
// other. A retry passes only the answers whose interrupts are still
// pending: an earlier execution may have finished the tasks of the others
// (their writes are saved), and those must not be answered twice.
func (e *entry[S]) answers(ctx context.Context, req runRequest) ([]graph.RunOption, error) {
	byID := req.resumeByID
	if req.answers != nil {
		byID = req.answers
	}
	if len(byID) == 0 && len(req.resume) == 0 {
		return nil, nil
	}
	if !req.retry && (len(byID) > 0 || req.pin == nil) {
		if len(byID) == 0 {
			return []graph.RunOption{graph.Resume(req.resume)}, nil
		}
		return []graph.RunOption{graph.ResumeByID(anyValues(byID))}, nil
	}
	snap, err := e.g.State(ctx, graph.WithThread(req.thread))
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return nil, fmt.Errorf("worker: read the interrupts of thread %q: %w", req.thread, err)
	}
	var pending []graph.Interruption
	if snap != nil {
		pending = snap.Interrupts
	}
	if len(byID) == 0 {
		if len(pending) != 1 || req.retry {
			// Nothing to pin to (the graph says why), or an execution
			// before the pinning existed answered it: let the graph decide.
			return []graph.RunOption{graph.Resume(req.resume)}, nil
		}
		byID = map[string]json.RawMessage{pending[0].ID: req.resume}
		if req.pin != nil {
			if err := req.pin(ctx, byID); err != nil {
				return nil, err
			}
		}
	}
	m := make(map[string]any, len(byID))
	for id, v := range byID {
		if req.retry && !slices.ContainsFunc(pending, func(in graph.Interruption) bool { return in.ID == id }) {
			continue // answered by an earlier execution
		}
		m[id] = v
	}
	if len(m) == 0 && req.retry {
		return nil, nil // every answer was taken: continue the thread
	}
	return []graph.RunOption{graph.ResumeByID(m)}, nil
}

// anyValues converts answers for graph.ResumeByID.
func anyValues(m map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(m))
	for id, v := range m {
		out[id] = v
	}
	return out
}

// callSafely calls f, turning a panic into an error with its stack: a
// panic in user code is a failure of the run, not of the worker, and
// retrying it would panic again.
func callSafely[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// started reports whether the thread has a checkpoint of the run.
func (e *entry[S]) started(ctx context.Context, req runRequest) (bool, error) {
	for _, err := range e.g.History(ctx, graph.WithThread(req.thread), graph.WithFilter(map[string]any{"run_id": req.runID}), graph.WithLimit(1)) {
		if err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}
