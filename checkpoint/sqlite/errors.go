package sqlite

import (
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// corruptError names the checkpoint whose stored data could not be read.
func corruptError(thread, ns, id, format string, args ...any) error {
	return fmt.Errorf("sqlite: thread %q namespace %q checkpoint %q: %s: %w",
		thread, ns, id, fmt.Sprintf(format, args...), checkpoint.ErrCorrupt)
}

// notFoundError names what was not found.
func notFoundError(cfg checkpoint.Config) error {
	if cfg.CheckpointID == "" {
		return fmt.Errorf("sqlite: thread %q namespace %q has no checkpoint: %w",
			cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
	}
	return fmt.Errorf("sqlite: thread %q namespace %q has no checkpoint %q: %w",
		cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
}

// conflictError names the thread and the two heads.
func conflictError(thread, ns, expected, actual string) error {
	return fmt.Errorf("sqlite: thread %q namespace %q: expected head %q, actual head %q: %w",
		thread, ns, expected, actual, checkpoint.ErrConflict)
}
