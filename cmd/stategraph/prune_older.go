package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stategraph/stategraph/retention"
)

// olderFlag is the value of prune --older-than: a Go duration (720h) or a
// number of days (30d).
type olderFlag struct {
	d   time.Duration
	set bool
}

func (o *olderFlag) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *olderFlag) Set(s string) error {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n*24 > float64(time.Duration(1<<63-1)/time.Hour) {
			return errors.New("not a number of days")
		}
		o.d, o.set = time.Duration(n*24*float64(time.Hour)), true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (say 720h or 30d)")
	}
	o.d, o.set = d, true
	return nil
}

// checkPruneOlder validates prune --older-than and its --keep.
func checkPruneOlder(c *command, e *env) error {
	switch {
	case e.older.d <= 0:
		return usagef(c, "prune: --older-than must be positive, not %v", e.older.d)
	case e.keep.set && e.keep.n < 1:
		return usagef(c, "prune: --keep must be at least 1, not %d (without --keep, expired threads are deleted)", e.keep.n)
	}
	return nil
}

// pruneOlderView is what prune --older-than prints with -json.
type pruneOlderView struct {
	OlderThan string    `json:"older_than"`
	Cutoff    time.Time `json:"cutoff"`
	Keep      int       `json:"keep,omitempty"`
	Deleted   []string  `json:"deleted"`
	Pruned    []string  `json:"pruned"`
	// Kept counts the expired threads left alone: a run holds them, or
	// they got a checkpoint during the sweep.
	Kept int `json:"kept"`
}

// runPruneOlder deletes the threads whose last checkpoint is older than
// --older-than, or with --keep prunes them: one retention sweep.
func runPruneOlder(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef(lookup("prune"), "prune: give THREAD or --older-than, not both")
	}
	what := fmt.Sprintf("every thread untouched for %v (each deleted whole)", e.older.d)
	if e.keep.set {
		what = fmt.Sprintf("every thread untouched for %v to its newest %d checkpoints", e.older.d, e.keep.n)
	}
	if err := confirm(e, "prune", what); err != nil {
		return err
	}
	sw, err := retention.New(e.store.Saver, retention.Policy{TTL: e.older.d, Keep: e.keep.n})
	if err != nil {
		return fmt.Errorf("%s: %w", e.store.Name, err)
	}
	r, err := sw.Sweep(ctx)
	v := pruneOlderView{OlderThan: e.older.d.String(), Cutoff: r.Cutoff.UTC(), Keep: e.keep.n, Deleted: r.Deleted, Pruned: r.Pruned, Kept: r.Kept}
	if v.Deleted == nil {
		v.Deleted = []string{}
	}
	if v.Pruned == nil {
		v.Pruned = []string{}
	}
	if err != nil {
		return fmt.Errorf("%s: %w (before the failure: deleted %d threads, pruned %d)", e.store.Name, err, len(r.Deleted), len(r.Pruned))
	}
	if e.json {
		return printJSON(e.out, v)
	}
	what, ids := "deleted", r.Deleted
	if e.keep.set {
		what, ids = fmt.Sprintf("pruned to %d checkpoints", e.keep.n), r.Pruned
	}
	if _, err := fmt.Fprintf(e.out, "%s %d threads whose last checkpoint is older than %s (before %s)\n", what, len(ids), v.OlderThan, when(v.Cutoff)); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := fmt.Fprintf(e.out, "  %s\n", printable(id)); err != nil {
			return err
		}
	}
	if r.Kept > 0 {
		_, err := fmt.Fprintf(e.out, "left %d expired threads that a run holds or that changed meanwhile\n", r.Kept)
		return err
	}
	return nil
}
