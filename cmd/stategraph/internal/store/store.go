package store

import (
	"context"
	"errors"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// ThreadLister lists the threads of a checkpoint database. It is the
// optional capability the inspector needs beside checkpoint.Saver.
type ThreadLister interface {
	// Threads returns every thread that has a checkpoint in the root
	// namespace, most recently updated first.
	Threads(ctx context.Context) ([]Thread, error)
}

// Thread is one row of a ThreadLister: a thread with the number of its
// root-namespace checkpoints and the creation time of the newest.
type Thread struct {
	ID          string
	Checkpoints int
	Updated     time.Time
}

// Store is an open checkpoint database: its Saver, its ThreadLister and
// what to close when done.
type Store struct {
	// Saver reads and deletes checkpoints.
	checkpoint.Saver
	// Lister names the threads.
	Lister ThreadLister
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
