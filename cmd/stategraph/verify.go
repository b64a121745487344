package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/stategraph/stategraph/checkpoint"
)

var verifyCmd = &command{
	name:    "verify",
	args:    "[THREAD...]",
	summary: "check every row of the threads (default: every thread) against its checksum, and every link of their histories; exit 1 on damage",
	min:     0, max: math.MaxInt,
	run: runVerify,
}

// verifyView is one thread of what verify prints with -json.
type verifyView struct {
	Thread string `json:"thread"`
	OK     bool   `json:"ok"`
	// Error is the damage found, when not OK.
	Error string `json:"error,omitempty"`
}

// errDamaged is the error of a verify that found damage: its details are
// printed already.
var errDamaged = errors.New("damage found")

func runVerify(ctx context.Context, e *env, args []string) error {
	v, ok := e.store.Saver.(checkpoint.Verifier)
	if !ok {
		return fmt.Errorf("%s: the checkpoint saver %T cannot verify (it does not implement checkpoint.Verifier)", e.store.Name, e.store.Saver)
	}
	threads := args
	if len(threads) == 0 {
		all, err := e.store.Lister.Threads(ctx)
		if err != nil {
			return fmt.Errorf("list threads: %w", err)
		}
		for _, t := range all {
			threads = append(threads, t.ID)
		}
	}
	views := make([]verifyView, 0, len(threads))
	damaged := 0
	for _, thread := range threads {
		err := v.Verify(ctx, thread)
		switch {
		case err == nil:
			views = append(views, verifyView{Thread: thread, OK: true})
		case errors.Is(err, checkpoint.ErrCorrupt):
			damaged++
			views = append(views, verifyView{Thread: thread, Error: err.Error()})
		default:
			return fmt.Errorf("verify thread %q: %w", thread, err)
		}
	}
	if e.json {
		if err := printJSON(e.out, views); err != nil {
			return err
		}
	} else {
		for _, v := range views {
			var err error
			if v.OK {
				_, err = fmt.Fprintf(e.out, "thread %q: ok\n", v.Thread)
			} else {
				_, err = fmt.Fprintf(e.out, "thread %q: DAMAGED: %s\n", v.Thread, v.Error)
			}
			if err != nil {
				return err
			}
		}
	}
	if damaged > 0 {
		return fmt.Errorf("verify: %d of %d threads damaged: %w", damaged, len(views), errDamaged)
	}
	return nil
}
