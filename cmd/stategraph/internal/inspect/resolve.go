package inspect

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Errors of Head, Resolve and History, checked with errors.Is.
var (
	// ErrUnknownThread: the thread has no checkpoint.
	ErrUnknownThread = errors.New("unknown thread")
	// ErrUnknownCheckpoint: the thread has no checkpoint with that id or
	// id prefix, or more than one.
	ErrUnknownCheckpoint = errors.New("unknown checkpoint")
)

// Head returns the latest checkpoint of a thread's root namespace.
func Head(ctx context.Context, s checkpoint.Saver, thread string) (*checkpoint.Tuple, error) {
	tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread})
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil, fmt.Errorf("%w %q: it has no checkpoint (list threads with \"stategraph threads\")", ErrUnknownThread, thread)
	}
	if err != nil {
		return nil, fmt.Errorf("thread %q: %w", thread, err)
	}
	return tup, nil
}

// Resolve returns the checkpoint ref of a thread: the latest when ref is
// "", else the checkpoint whose id is ref or, failing that, the only one
// whose id starts or ends with ref.
func Resolve(ctx context.Context, s checkpoint.Saver, thread, ref string) (*checkpoint.Tuple, error) {
	head, err := Head(ctx, s, thread)
	if err != nil || ref == "" {
		return head, err
	}
	tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: ref})
	if err == nil {
		return tup, nil
	}
	if !errors.Is(err, checkpoint.ErrNotFound) {
		return nil, fmt.Errorf("thread %q checkpoint %q: %w", thread, ref, err)
	}
	hist, err := History(ctx, s, thread)
	if err != nil {
		return nil, err
	}
	var matches []string
	for _, t := range hist {
		id := t.Config.CheckpointID
		if strings.HasPrefix(id, ref) || strings.HasSuffix(id, ref) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("%w %q: thread %q has no such checkpoint (list them with \"stategraph history %s\")", ErrUnknownCheckpoint, ref, thread, thread)
	case 1:
		tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: matches[0]})
		if err != nil {
			return nil, fmt.Errorf("thread %q checkpoint %q: %w", thread, matches[0], err)
		}
		return tup, nil
	}
	return nil, fmt.Errorf("%w %q: it matches %d checkpoints of thread %q (%s); give more of the id",
		ErrUnknownCheckpoint, ref, len(matches), thread, strings.Join(matches, ", "))
}

// History returns every checkpoint of a thread's root namespace, newest
// first.
func History(ctx context.Context, s checkpoint.Saver, thread string) ([]*checkpoint.Tuple, error) {
	var out []*checkpoint.Tuple
	for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		if err != nil {
			return nil, fmt.Errorf("thread %q: history: %w", thread, err)
		}
		out = append(out, tup)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %q: it has no checkpoint (list threads with \"stategraph threads\")", ErrUnknownThread, thread)
	}
	return out, nil
}
