package replay

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// WithFrom has Run replay the thread from its checkpoint id instead of
// from its first input: the replay starts with the recorded checkpoints
// up to it, as stored, runs on from its state (the rest of its run, when
// it is not the end of one, then the thread's later inputs and resumes),
// with the calls answered from the recording, and compares the steps
// after it. id is a checkpoint of the thread's root namespace (Snapshot's
// Config.CheckpointID, or an id `stategraph replay -list` shows); one the
// thread does not have is an error wrapping checkpoint.ErrNotFound. The
// recorded thread's values must be JSON (the default serializer) when a
// field is stored as deltas.
func WithFrom(checkpointID string) Option { return func(o *options) { o.from = checkpointID } }

// fromIndex returns the index in snaps of the checkpoint id.
func fromIndex[S any](snaps []*graph.Snapshot[S], thread, id string) (int, error) {
	for i, s := range snaps {
		if s.Config.CheckpointID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("replay: thread %q has no checkpoint %q in its root namespace: %w", thread, id, checkpoint.ErrNotFound)
}

// seed copies the recorded checkpoints of thread's root namespace, oldest
// first, up to and including the one with id upTo, from src into dst,
// without their pending writes (the replay runs their tasks again) but
// for the interrupts of the last one, which a resume answers.
func seed(ctx context.Context, src, dst checkpoint.Saver, thread, upTo string) error {
	var tuples []*checkpoint.Tuple
	for tup, err := range src.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		if err != nil {
			return fmt.Errorf("replay: read thread %q: %w", thread, err)
		}
		if tup.Config.Namespace != "" {
			continue
		}
		tuples = append(tuples, tup)
	}
	head := ""
	for i := len(tuples) - 1; i >= 0; i-- {
		tup := tuples[i]
		cp := checkpoint.Checkpoint{ID: tup.Checkpoint.ID, CreatedAt: tup.Checkpoint.CreatedAt, Versions: map[string]string{}, New: map[string]checkpoint.Blob{}}
		for ch, ver := range tup.Checkpoint.Versions {
			v, ok := tup.Checkpoint.Values[ch]
			if !ok {
				return fmt.Errorf("replay: thread %q checkpoint %s: no value of channel %q", thread, tup.Checkpoint.ID, ch)
			}
			data, err := joinDeltas(v)
			if err != nil {
				return fmt.Errorf("replay: thread %q checkpoint %s channel %q: %w", thread, tup.Checkpoint.ID, ch, err)
			}
			cp.Versions[ch] = ver
			cp.New[ch] = checkpoint.Blob{Version: ver, Data: data}
		}
		md := tup.Metadata
		_, err := dst.Put(ctx, checkpoint.PutRequest{Config: checkpoint.Config{ThreadID: thread, CheckpointID: head}, Checkpoint: cp, Metadata: md, ExpectHead: head})
		if err != nil {
			return fmt.Errorf("replay: copy checkpoint %s of thread %q: %w", tup.Checkpoint.ID, thread, err)
		}
		head = cp.ID
		if cp.ID == upTo {
			return copyInterrupts(ctx, dst, tup)
		}
	}
	return fmt.Errorf("replay: thread %q has no checkpoint %q in its root namespace: %w", thread, upTo, checkpoint.ErrNotFound)
}

// joinDeltas returns a stored value as one encoding: its snapshot, or, for
// a field stored with deltas, the JSON arrays of snapshot and deltas
// joined.
func joinDeltas(v checkpoint.Value) ([]byte, error) {
	if len(v.Deltas) == 0 {
		return v.Snapshot, nil
	}
	var all []json.RawMessage
	for i, part := range append([][]byte{v.Snapshot}, v.Deltas...) {
		if i == 0 && len(part) == 0 {
			continue // a chain from the empty value
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(part, &elems); err != nil {
			return nil, fmt.Errorf("join its deltas (a replay from a checkpoint needs JSON): %w", err)
		}
		all = append(all, elems...)
	}
	if all == nil {
		all = []json.RawMessage{}
	}
	return json.Marshal(all)
}

// startFrom prepares a replay from the checkpoint id (WithFrom): it
// copies the recorded checkpoints before it into mem (and the checkpoint
// itself unless it is a run's input, which the replay gives again), and
// returns the runs from it on — led by a resume without a value when the
// checkpoint is in the middle of a run — and the recording's calls made
// after it.
func startFrom[S any](ctx context.Context, saver, mem checkpoint.Saver, want []*graph.Snapshot[S], runs []runOf[S], rec *Recording, thread, id string) ([]runOf[S], *Recording, error) {
	f, err := fromIndex(want, thread, id)
	if err != nil {
		return nil, nil, err
	}
	from := want[f]
	var out []runOf[S]
	for _, r := range runs {
		if r.at >= f {
			out = append(out, r)
		}
	}
	input := from.Metadata.Source == checkpoint.SourceInput
	upTo := id
	if input {
		upTo = ""
		if f > 0 {
			upTo = want[f-1].Config.CheckpointID
		}
	}
	if upTo != "" {
		if err := seed(ctx, saver, mem, thread, upTo); err != nil {
			return nil, nil, err
		}
	}
	if !input && len(from.Next) > 0 && (len(out) == 0 || out[0].at != f) {
		out = append([]runOf[S]{{resume: true, at: f}}, out...)
	}
	after := &Recording{Thread: rec.Thread}
	for _, c := range rec.Calls {
		if c.Step > from.Metadata.Step {
			after.Calls = append(after.Calls, c)
		}
	}
	return out, after, nil
}

// copyInterrupts stores the interrupt writes of tup (the checkpoint a
// replay starts from) in dst, by task, so that a resume of the replay
// finds what it answers.
func copyInterrupts(ctx context.Context, dst checkpoint.Saver, tup *checkpoint.Tuple) error {
	byTask := map[string][]checkpoint.PendingWrite{}
	var order []string
	for _, w := range tup.PendingWrites {
		if w.Channel != checkpoint.InterruptChannel {
			continue
		}
		if _, ok := byTask[w.TaskID]; !ok {
			order = append(order, w.TaskID)
		}
		byTask[w.TaskID] = append(byTask[w.TaskID], w)
	}
	for _, task := range order {
		if err := dst.PutWrites(ctx, tup.Config, task, byTask[task]); err != nil {
			return fmt.Errorf("replay: copy the interrupts of checkpoint %s: %w", tup.Checkpoint.ID, err)
		}
	}
	return nil
}
