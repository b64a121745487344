package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// ThreadLister lists the threads of a checkpoint database and their
// namespaces. It is the optional capability the inspector needs beside
// checkpoint.Saver. Each method is one query.
type ThreadLister interface {
	// Threads returns every thread that has a checkpoint in the root
	// namespace, most recently updated first, each with its subgraph
	// namespaces.
	Threads(ctx context.Context) ([]Thread, error)
	// Namespaces returns every namespace in which thread has a
	// checkpoint: the root ("") first when it has one, then the
	// subgraph namespaces in the order they were first written. An
	// unknown thread has none.
	Namespaces(ctx context.Context, thread string) ([]Namespace, error)
}

// Thread is one row of a ThreadLister: a thread with the number of its
// root-namespace checkpoints, the creation time of the newest, and its
// other namespaces.
type Thread struct {
	ID          string
	Checkpoints int
	Updated     time.Time
	// Namespaces are the namespaces its subgraphs checkpointed in (the
	// root excluded), ordered as ThreadLister.Namespaces orders them.
	Namespaces []Namespace
}

// Namespace is one namespace of a thread: "" for the graph itself, or
// the namespace of a subgraph task, "node:task-id" ("outer:id|inner:id"
// when nested).
type Namespace struct {
	Name string
	// Checkpoints is the number of the thread's checkpoints in it, and
	// Updated the creation time of the newest.
	Checkpoints int
	Updated     time.Time

	first time.Time // the creation time of the oldest
}

// Store is an open checkpoint database: its Saver, its ThreadLister and
// what to close when done.
type Store struct {
	// Saver reads and deletes checkpoints.
	checkpoint.Saver
	// Lister names the threads and their namespaces.
	Lister ThreadLister
	// Leases reads who runs a thread now; nil for a database without
	// the lease table (one migrated by an older stategraph).
	Leases checkpoint.Leaser
	// Name describes the database for messages: a path, or a DSN with its
	// password hidden.
	Name string

	closers []func() error
}

// Close closes the Saver and the connections the Store opened.
func (s *Store) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	return errors.Join(errs...)
}

// Lease returns the live lease of thread (a run holds it now), or nil.
func (s *Store) Lease(ctx context.Context, thread string) (*checkpoint.LeaseInfo, error) {
	if s.Leases == nil {
		return nil, nil
	}
	info, err := s.Leases.LeaseOf(ctx, thread)
	if err != nil {
		return nil, fmt.Errorf("%s: thread %q: %w", s.Name, thread, err)
	}
	return info, nil
}
