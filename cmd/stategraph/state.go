package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var stateCmd = &command{
	name:    "state",
	args:    "THREAD [CHECKPOINT] " + nsArgs,
	summary: "values, next nodes, interrupts and task errors (default: the latest checkpoint)",
	min:     1, max: 2,
	flags: nsFlag,
	run:   runState,
}

// stateView is a checkpoint as state prints it.
type stateView struct {
	Thread     string                     `json:"thread"`
	Namespace  string                     `json:"namespace,omitempty"`
	Checkpoint string                     `json:"checkpoint"`
	Parent     string                     `json:"parent,omitempty"`
	Step       int                        `json:"step"`
	Source     string                     `json:"source"`
	Nodes      []string                   `json:"nodes"`
	RunID      string                     `json:"run_id,omitempty"`
	Extra      map[string]any             `json:"extra,omitempty"`
	CreatedAt  time.Time                  `json:"created_at"`
	Status     string                     `json:"status"`
	Next       []string                   `json:"next"`
	Sends      []inspect.Send             `json:"sends,omitempty"`
	Values     map[string]json.RawMessage `json:"values"`
	Interrupts []inspect.Interrupt        `json:"interrupts"`
	Errors     []inspect.TaskError        `json:"errors"`
	// Cancelled are the tasks a cancellation stopped, as older versions
	// of the runtime recorded them: pending, not failed.
	Cancelled []inspect.TaskError `json:"cancelled,omitempty"`
	// Lease names the run that holds the thread now, if one does.
	Lease *checkpoint.LeaseInfo `json:"lease,omitempty"`

	status inspect.Status
}

// view reads everything state shows of a checkpoint.
func view(tup *checkpoint.Tuple) (*stateView, error) {
	id := tup.Config.CheckpointID
	at := where(tup.Config.ThreadID, tup.Config.Namespace)
	values, err := inspect.Values(tup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	sched, err := inspect.ParseSchedule(tup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	tasks, err := inspect.Pending(tup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	st, err := inspect.StatusOf(tup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	v := &stateView{
		Thread: tup.Config.ThreadID, Namespace: tup.Config.Namespace, Checkpoint: id,
		Step: tup.Metadata.Step, Source: string(tup.Metadata.Source), Nodes: tup.Metadata.Nodes,
		RunID: tup.Metadata.RunID, Extra: tup.Metadata.Extra, CreatedAt: tup.Checkpoint.CreatedAt,
		Status: st.State, Next: sched.Unfinished(tup), Sends: sched.Sends, Values: values,
		Interrupts: tasks.Interrupts, Errors: tasks.Errors, Cancelled: tasks.Cancelled, status: st,
	}
	if v.Nodes == nil {
		v.Nodes = []string{}
	}
	if tup.Parent != nil {
		v.Parent = tup.Parent.CheckpointID
	}
	return v, nil
}

func runState(ctx context.Context, e *env, args []string) error {
	var ref string
	if len(args) > 1 {
		ref = args[1]
	}
	ns, err := e.namespace(ctx, args[0])
	if err != nil {
		return err
	}
	tup, err := inspect.Resolve(ctx, e.store, args[0], ns, ref)
	if err != nil {
		return err
	}
	v, err := view(tup)
	if err != nil {
		return err
	}
	if v.Lease, err = e.store.Lease(ctx, args[0]); err != nil {
		return err
	}
	if e.json {
		return printJSON(e.out, v)
	}
	return printState(e, v)
}

func printState(e *env, v *stateView) error {
	tb := newTable(e.out, "thread", v.Thread)
	if v.Namespace != "" {
		tb.row("namespace", v.Namespace)
	}
	tb.row("checkpoint", v.Checkpoint)
	if v.Parent != "" {
		tb.row("parent", v.Parent)
	}
	tb.row("step", strconv.Itoa(v.Step))
	tb.row("source", v.Source)
	tb.row("nodes", list(v.Nodes))
	tb.row("created", when(v.CreatedAt))
	tb.row("status", v.status.String())
	if v.Lease != nil {
		tb.row("running", heldBy(v.Lease))
	}
	tb.row("next", list(v.Next))
	if err := tb.flush(); err != nil {
		return err
	}

	values, err := json.MarshalIndent(v.Values, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "\nvalues:\n%s\n", printableText(string(values)))

	for i, s := range v.Sends {
		arg, _ := json.Marshal(s.Arg)
		if i == 0 {
			fmt.Fprintln(e.out, "\nsends:")
		}
		fmt.Fprintf(e.out, "  %s %s\n", printable(s.Node), printable(short(string(arg), 100)))
	}
	if len(v.Interrupts) > 0 {
		fmt.Fprintln(e.out, "\ninterrupts:")
		tb := newTable(e.out, "NODE", "WHEN", "STEP", "VALUE", "ID")
		for _, in := range v.Interrupts {
			val := string(in.Value)
			if val == "" {
				val = "-"
			}
			tb.row(in.Node, in.When, strconv.Itoa(in.Step), short(val, 60), in.ID)
		}
		if err := tb.flush(); err != nil {
			return err
		}
	}
	if err := printTaskErrors(e, "task errors", v.Errors); err != nil {
		return err
	}
	return printTaskErrors(e, "cancelled tasks (pending: they run again on resume)", v.Cancelled)
}

// printTaskErrors prints the task errors errs under title, if any.
func printTaskErrors(e *env, title string, errs []inspect.TaskError) error {
	if len(errs) == 0 {
		return nil
	}
	fmt.Fprintf(e.out, "\n%s:\n", title)
	tb := newTable(e.out, "NODE", "ERROR", "TASK")
	for _, te := range errs {
		tb.row(te.Node, strings.TrimSpace(te.Error), te.TaskID)
	}
	return tb.flush()
}
