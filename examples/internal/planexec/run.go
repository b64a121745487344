package planexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/state"
)

// app is the compiled agent.
type app = graph.Compiled[nodes.AgentState]

// run runs (or resumes) the agent on the delivery case and returns the
// exit code.
func run(ctx context.Context, cfg config, stdin io.Reader, stdout, stderr io.Writer) int {
	name := cfg.prog.name()
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, name+": "+format+"\n", args...)
		return code
	}
	c := delivery.New()
	acfg, setup, err := agentConfig(ctx, cfg.model, c, os.Getenv)
	if err != nil {
		var se *models.SetupError
		if errors.As(err, &se) {
			return fail(ExitUsage, "%v", err)
		}
		return fail(ExitFailed, "%v", err)
	}
	acfg.Tools = watchTools(acfg.Tools, slowTools(), cfg.delay)
	var compileOpts []graph.CompileOption
	if tr := cfg.prog.Tracer; tr != nil {
		var opts []graph.CompileOption
		ctx, acfg, opts, err = tr.Start(ctx, Invocation{Thread: cfg.thread, Model: cfg.model}, acfg)
		if err != nil {
			return fail(ExitUsage, "%v", err)
		}
		compileOpts = append(compileOpts, opts...)
		defer func() {
			where, err := tr.Finish(context.WithoutCancel(ctx))
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", name, err)
				return
			}
			fmt.Fprintf(stdout, "The spans went to %s.\n", where)
		}()
	}
	saver, err := sqlite.Open(cfg.db)
	if err != nil {
		return fail(ExitFailed, "open the checkpoint database: %v", err)
	}
	defer saver.Close()
	// A model's answer is printed as it arrives (the offline responder
	// makes no model call: nothing streams).
	opts := []nodes.AgentOption{nodes.WithTokenStreaming()}
	if cfg.rounds {
		// Round by round: each step shows as its own task.
		opts = append(opts, nodes.WithRoundByRound())
	}
	agent, err := nodes.NewAgent(acfg, opts...)
	if err != nil {
		return fail(ExitFailed, "%v", err)
	}
	a, err := agent.Compile(append(compileOpts, graph.WithCheckpointer(saver), graph.WithName("planexecute"))...)
	if err != nil {
		return fail(ExitFailed, "%v", err)
	}

	p := newProgress(stdout)
	p.eager = !cfg.rounds
	fmt.Fprintf(stdout, "Plan-and-execute: %s\n", c.Goal())
	fmt.Fprintf(stdout, "constraints: %s\n", strings.Join(c.Constraints(), " · "))
	fmt.Fprintf(stdout, "setup: %s\n", setup)
	if cfg.delay > 0 {
		fmt.Fprintf(stdout, "each tool call takes %v (-delay): press Ctrl-C to interrupt, then -resume to finish\n", cfg.delay)
	}
	fmt.Fprintf(stdout, "thread %s · checkpoints in %s\n\n", cfg.thread, cfg.db)

	r := &runner{cfg: cfg, app: a, p: p, in: newAsker(stdin, stdout), out: stdout}
	code := r.run(ctx, c)
	if code == ExitFailed && r.err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, r.err)
		fmt.Fprintf(stderr, "The thread keeps its last checkpoint; to retry what failed: %s\n", cfg.resumeCommand())
	}
	if cfg.mermaid != "" && code != ExitUsage {
		// The run may have been cancelled; the file is still worth writing.
		if err := writeMermaid(context.WithoutCancel(ctx), a, cfg.thread, cfg.mermaid); err != nil {
			fmt.Fprintf(stderr, "%s: -mermaid: %v\n", name, err)
			if code == ExitOK {
				code = ExitFailed
			}
		} else {
			fmt.Fprintf(stdout, "The graph and this run's path are in %s.\n", cfg.mermaid)
		}
	}
	return code
}

// runner is one invocation of the program: a run, the approval prompts,
// and resumes after them.
type runner struct {
	cfg     config
	app     *app
	p       *progress
	in      *asker
	out     io.Writer
	approve bool  // ask before the final answer
	err     error // why the run failed (ExitFailed)
}

func (r *runner) run(ctx context.Context, c *delivery.Case) int {
	r.approve = r.cfg.approve
	thread := graph.WithThread(r.cfg.thread)
	var input state.Update[nodes.AgentState]
	if r.cfg.resume {
		snap, err := r.app.State(ctx, thread)
		if errors.Is(err, checkpoint.ErrNotFound) {
			fmt.Fprintf(r.out, "There is no thread %q in %s: start a run without -resume.\n", r.cfg.thread, r.cfg.db)
			return ExitUsage
		}
		if err != nil {
			r.err = err
			return ExitFailed
		}
		if v, _ := snap.Metadata.Extra["approve"].(bool); v {
			r.approve = true // the thread was started with -approve
		}
		if len(snap.Next) == 0 {
			fmt.Fprintln(r.out, "The thread has already finished; its answer:")
			r.answer(snap.Values)
			return ExitOK
		}
		fmt.Fprintf(r.out, "Resuming after graph step %d: %s. Work already saved is not done again.\n\n",
			snap.Metadata.Step, pending(snap.Tasks))
	} else {
		input = nodes.NewInput(c.Goal(), c.Constraints()...)
	}

	approved := false
	for {
		if r.approve && !approved && input.IsZero() {
			snap, err := r.app.State(ctx, thread)
			if err != nil {
				r.err = err
				return ExitFailed
			}
			if slices.Equal(snap.Next, []string{nodes.NodeRespond}) {
				ok, err := r.ask(ctx, snap.Values)
				switch {
				case ctx.Err() != nil:
					return r.interrupted()
				case err != nil || !ok:
					why := "Declined"
					if err != nil {
						why = fmt.Sprintf("No approval (%v)", err)
					}
					fmt.Fprintf(r.out, "%s: no answer was written. The thread stays paused before %q;\nto decide later: %s -approve\n",
						why, nodes.NodeRespond, r.cfg.resumeCommand())
					return ExitDeclined
				}
				approved = true
			}
		}
		opts := []graph.RunOption{thread,
			graph.StreamModes(graph.Tasks, graph.Values, graph.Custom, graph.Interrupts, graph.Messages),
			graph.WithMetadata(map[string]any{"example": "planexecute", "approve": r.approve}),
		}
		if r.approve && !approved {
			opts = append(opts, graph.InterruptBefore(nodes.NodeRespond))
		}
		paused := false
		for ev, err := range r.app.Stream(ctx, input, opts...) {
			if err != nil {
				if ctx.Err() != nil {
					return r.interrupted()
				}
				r.err = err
				return ExitFailed
			}
			if ev.Mode == graph.Interrupts {
				paused = true
				continue
			}
			r.p.event(ev)
		}
		if ctx.Err() != nil {
			return r.interrupted()
		}
		if !paused {
			break
		}
		input = state.Update[nodes.AgentState]{} // paused before respond: ask, then resume
	}
	r.answer(r.p.state)
	return ExitOK
}

// interrupted explains how to finish a thread stopped by Ctrl-C.
func (r *runner) interrupted() int {
	fmt.Fprintf(r.out, "\nInterrupted. The thread is saved and resumable; finished steps will not run again.\nTo finish it: %s\n", r.cfg.resumeCommand())
	return ExitInterrupted
}

// ask shows what the agent found and asks whether to write the answer.
func (r *runner) ask(ctx context.Context, s nodes.AgentState) (bool, error) {
	var found []string
	for _, o := range s.PastSteps {
		if o.Tool != "" {
			found = append(found, fmt.Sprintf("  - %s: %s\n", o.StepID, describeOutcome(o)))
		}
	}
	// Plan steps that called a tool, not graph steps (the numbers on the
	// progress lines).
	fmt.Fprintf(r.out, "\nApproval needed before the final answer. The agent ran %d tool steps of its plan (%d tool calls, all read-only) and found:\n%s",
		len(found), len(s.Audit), strings.Join(found, ""))
	return r.in.ask(ctx, "Write the answer?")
}

// answer prints the final answer and what the run spent.
func (r *runner) answer(s nodes.AgentState) {
	if streamed := r.p.streamed.String(); streamed != "" {
		// The model's answer was printed as it arrived: print only what
		// the respond node added (a stop, a replaced step), if anything.
		rest, ok := strings.CutPrefix(s.Answer(), strings.TrimSpace(streamed))
		if !ok {
			rest = "\n(the answer as recorded)\n" + s.Answer()
		}
		fmt.Fprintf(r.out, "%s\n\n", strings.TrimRight(rest, "\n"))
	} else {
		fmt.Fprintf(r.out, "\nAnswer\n──────\n%s\n\n", s.Answer())
	}
	u := s.Usage
	fmt.Fprintf(r.out, "Done in %.3fs: %d rounds, %d replan(s), %d tool calls (%d by this process), %d model calls",
		time.Since(r.p.start).Seconds(), u.Rounds, u.Replans, u.ToolCalls, r.p.calls, u.ModelCalls)
	if u.TotalTokens > 0 {
		fmt.Fprintf(r.out, ", %d tokens", u.TotalTokens)
	}
	fmt.Fprintf(r.out, ".\nThread %s in %s.\n", r.cfg.thread, r.cfg.db)
}

// pending describes a checkpoint's pending tasks: "next: execute ×3 (1
// already done)".
func pending(tasks []graph.TaskInfo) string {
	var names []string
	count, done := map[string]int{}, 0
	for _, t := range tasks {
		if count[t.Node] == 0 {
			names = append(names, t.Node)
		}
		count[t.Node]++
		if t.Done {
			done++
		}
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = fmt.Sprintf("%s ×%d", n, count[n])
		}
	}
	s := "next: " + strings.Join(names, ", ")
	if done > 0 {
		s += fmt.Sprintf(" (%d already done)", done)
	}
	return s
}
