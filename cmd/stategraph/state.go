package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var stateCmd = &command{
	name:    "state",
	args:    "THREAD [CHECKPOINT] " + nsArgs + " [-field PATH]",
	summary: "values, next nodes, interrupts and task errors (default: the latest checkpoint), or with -field one value",
	min:     1, max: 2,
	flags: func(fs *flag.FlagSet, e *env) {
		nsFlag(fs, e)
		fs.StringVar(&e.field, "field", e.field, "print only the value at `PATH`, a field and the keys or indexes into it: plan.steps.0 (a string prints as text, anything else as JSON)")
	},
	check: func(c *command, e *env) error {
		if e.field == "" {
			return nil
		}
		if _, err := inspect.ParsePath(e.field); err != nil {
			return usagef(c, "state: -field: %v", err)
		}
		return nil
	},
	run: runState,
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
	if e.field != "" {
		return printField(e, tup)
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

// printField prints the value at -field's path in the checkpoint tup:
// JSON (indented), or for a string in a table its text.
func printField(e *env, tup *checkpoint.Tuple) error {
	at := fmt.Sprintf("%s checkpoint %q", where(tup.Config.ThreadID, tup.Config.Namespace), tup.Config.CheckpointID)
	values, err := inspect.Values(tup)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	raw, err := inspect.Select(values, e.field)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if e.json {
		return printJSON(e.out, raw)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		_, err := fmt.Fprintln(e.out, printableText(s))
		return err
	}
	text, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.out, printableText(string(text)))
	return err
}

func printState(e *env, v *stateView) error {
	tb := e.table("thread", v.Thread).fit(cut, 1)
	if v.Namespace != "" {
		tb.keepRow("namespace", v.Namespace)
	}
	tb.keepRow("checkpoint", v.Checkpoint)
	if v.Parent != "" {
		tb.keepRow("parent", v.Parent)
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
		tb := e.table("NODE", "WHEN", "STEP", "VALUE", "ID").fit(cut, 3).fit(idEnd, 4)
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
	tb := e.table("NODE", "ERROR", "TASK").fit(cut, 1).fit(idEnd, 2)
	for _, te := range errs {
		tb.row(te.Node, strings.TrimSpace(te.Error), te.TaskID)
	}
	return tb.flush()
}
