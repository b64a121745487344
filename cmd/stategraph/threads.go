package main

import (
	"context"
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
	for _, t := range threads {
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
			Checkpoints: t.Checkpoints, Head: head.Config.CheckpointID, Updated: t.Updated, Namespaces: nss,
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

// running describes a thread a run holds now.
func running(l *checkpoint.LeaseInfo) string { return "running (" + heldBy(l) + ")" }

// heldBy names a lease's holder and since when it holds the thread.
func heldBy(l *checkpoint.LeaseInfo) string { return "held by " + l.Holder + " since " + when(l.Since) }
