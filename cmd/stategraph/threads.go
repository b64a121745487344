package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var threadsCmd = &command{
	name:    "threads",
	summary: "every thread: last step, status, checkpoints, namespaces, updated time",
	run:     runThreads,
}

// threadRow is one thread as threads prints it.
type threadRow struct {
	Thread string `json:"thread"`
	Step   int    `json:"step"`
	Status string `json:"status"`
	// Next are the tasks of the next step by node, one per task, as
	// state lists them.
	Next  []string `json:"next"`
	Error string   `json:"error,omitempty"`
	// Cancelled reports a task of the next step stopped by a
	// cancellation that an older version of the runtime recorded (for a
	// pending thread, the table's "(cancelled)").
	Cancelled bool `json:"cancelled,omitempty"`
	// Holder and Since name the run that holds the thread's lease now
	// (Status "running"), and since when.
	Holder      string     `json:"holder,omitempty"`
	Since       *time.Time `json:"since,omitempty"`
	Checkpoints int        `json:"checkpoints"`
	Head        string     `json:"head"`
	Updated     time.Time  `json:"updated"`
	// Namespaces are the namespaces its subgraphs checkpointed in, in the
	// order they were first written; the root's are the fields above.
	Namespaces []namespaceRow `json:"namespaces"`
}

// namespaceRow is one subgraph namespace of a thread as threads prints it
// with -json.
type namespaceRow struct {
	Namespace   string    `json:"namespace"`
	Checkpoints int       `json:"checkpoints"`
	Updated     time.Time `json:"updated"`
}

func runThreads(ctx context.Context, e *env, _ []string) error {
	threads, err := e.store.Lister.Threads(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", e.store.Name, err)
	}
	rows := make([]threadRow, 0, len(threads))
	var statuses []string
	damaged := 0
	for _, t := range threads {
		// The checkpoints counted are those a walk of the history
		// verifies (checksums and links), not the rows there are: a
		// damaged thread says so, with what was verified.
		counted, err := verifiedCount(ctx, e.store, t.ID, "")
		if errors.Is(err, checkpoint.ErrCorrupt) {
			damaged++
			rows = append(rows, threadRow{Thread: t.ID, Status: "damaged", Error: err.Error(), Checkpoints: counted,
				Next: []string{}, Updated: t.Updated, Namespaces: []namespaceRow{}})
			statuses = append(statuses, "damaged ("+err.Error()+")")
			continue
		}
		if err != nil {
			return err
		}
		head, err := inspect.Head(ctx, e.store, t.ID, "")
		if err != nil {
			return err
		}
		st, err := inspect.StatusOf(head)
		if err != nil {
			return fmt.Errorf("thread %q: %w", t.ID, err)
		}
		sched, err := inspect.ParseSchedule(head)
		if err != nil {
			return fmt.Errorf("thread %q: %w", t.ID, err)
		}
		nss := make([]namespaceRow, len(t.Namespaces))
		for i, n := range t.Namespaces {
			nss[i] = namespaceRow{Namespace: n.Name, Checkpoints: n.Checkpoints, Updated: n.Updated}
		}

		row := threadRow{
			Thread: t.ID, Step: head.Metadata.Step, Status: st.State, Next: sched.Unfinished(head), Error: st.Error, Cancelled: st.Cancelled,
			Checkpoints: counted, Head: head.Config.CheckpointID, Updated: t.Updated, Namespaces: nss,
		}
		status := st.String()
		lease, err := e.store.Lease(ctx, t.ID)
		if err != nil {
			return err
		}
		if lease != nil {
			row.Status, row.Holder, row.Since = "running", lease.Holder, &lease.Since
			status = running(lease)
		}
		rows = append(rows, row)
		statuses = append(statuses, status)
	}
	if err := printThreads(e, rows, statuses); err != nil {
		return err
	}
	if damaged > 0 {
		return fmt.Errorf("threads: %d of %d threads damaged (stategraph verify says more): %w", damaged, len(rows), errDamaged)
	}
	return nil
}

func printThreads(e *env, rows []threadRow, statuses []string) error {
	if e.json {
		return printJSON(e.out, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintf(e.out, "no threads in %s\n", printable(e.store.Name))
		return err
	}
	tb := e.table("THREAD", "STEP", "STATUS", "CHECKPOINTS", "NAMESPACES", "UPDATED").fit(cut, 2)
	for i, r := range rows {
		tb.row(r.Thread, strconv.Itoa(r.Step), statuses[i], strconv.Itoa(r.Checkpoints), strconv.Itoa(len(r.Namespaces)), when(r.Updated))
	}
	return tb.flush()
}

// verifiedCount walks the history of thread in namespace ns, reading no
// values, and returns how many checkpoints it verified: every one, or
// those before the damage it met (ErrCorrupt).
func verifiedCount(ctx context.Context, s checkpoint.Saver, thread, ns string) (int, error) {
	n := 0
	skipAll := func(*checkpoint.Tuple, string) bool { return true }
	for _, err := range s.List(ctx, checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{SkipValue: skipAll}) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// running describes a thread a run holds now.
func running(l *checkpoint.LeaseInfo) string { return "running (" + heldBy(l) + ")" }

// heldBy names a lease's holder and since when it holds the thread.
func heldBy(l *checkpoint.LeaseInfo) string { return "held by " + l.Holder + " since " + when(l.Since) }
