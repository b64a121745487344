package planexec

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// Exit codes of the programs.
const (
	ExitOK          = 0   // the answer was written
	ExitFailed      = 1   // the run failed
	ExitUsage       = 2   // bad flags, or a model not configured or not reachable
	ExitDeclined    = 3   // the answer was declined at the approval prompt
	ExitInterrupted = 130 // Ctrl-C: the thread is resumable
)

// defaultDB is the checkpoint database when -db is not given.
const defaultDB = "planexecute.db"

// config is what the flags ask for.
type config struct {
	model   string // "", "openai" or "ollama"
	thread  string
	resume  bool
	approve bool
	db      string
	mermaid string
	delay   time.Duration // how long each simulated tool call takes
	rounds  bool          // run the plan round by round (nodes.WithRoundByRound)
	prog    Program       // the program these flags are for
}

// parseFlags reads the command line. It returns a code >= 0 when the
// program should exit at once (after -h, or on bad flags), -1 otherwise.
func parseFlags(p Program, args []string, stderr io.Writer) (config, int) {
	cfg := config{prog: p}
	name := p.name()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.model, "model", "", "`name` of a real model provider, openai or ollama, to plan, replan and answer (default: none, offline)")
	fs.StringVar(&cfg.thread, "thread", "", "the thread `ID` to run on (default: a new id, printed at start)")
	fs.BoolVar(&cfg.resume, "resume", false, "continue the interrupted thread named by -thread instead of starting a run")
	fs.BoolVar(&cfg.approve, "approve", false, "ask for approval (y/n on standard input) before the final answer")
	fs.StringVar(&cfg.db, "db", defaultDB, "the SQLite checkpoint database `PATH`")
	fs.StringVar(&cfg.mermaid, "mermaid", "", "write the graph and the path this run took to `FILE` (Markdown with Mermaid blocks)")
	fs.BoolVar(&cfg.rounds, "rounds", false, "run the plan round by round (one execute task per step, each round waiting for its slowest step) instead of starting each step as soon as the steps it depends on complete")
	fs.DurationVar(&cfg.delay, "delay", 0, "make each simulated tool call take `DURATION` (such as 2s; default 0, no delay), time enough to press Ctrl-C and try -resume;\nthe case's time budget is one minute of running time, so keep it under 15s")
	if p.Flags != nil {
		p.Flags(fs)
	}
	fs.Usage = func() {
		cmd := p.command()
		fmt.Fprintf(stderr, "Usage: %s [flags]\n", cmd)
		fmt.Fprintln(stderr, "\nThe plan-and-execute agent on the delivery case (order O1001), checkpointed in SQLite.")
		if p.About != "" {
			fmt.Fprintln(stderr, p.About)
		}
		fmt.Fprintln(stderr, "\nTry Ctrl-C and resume:")
		fmt.Fprintf(stderr, "  %s -delay 2s -thread demo   # press Ctrl-C after a few tool calls\n", cmd)
		fmt.Fprintf(stderr, "  %s -resume -thread demo     # finishes it; saved steps do not run again\n", cmd)
		fmt.Fprintln(stderr, "\nExit codes: 0 answered, 1 failed, 2 bad flags or model setup, 3 declined, 130 interrupted.")
		fmt.Fprintln(stderr, "go run reports any failure as exit status 1 (it prints the program's own, e.g. \"exit status 3\");")
		fmt.Fprintln(stderr, "scripts that need the codes run the program itself:")
		fmt.Fprintf(stderr, "  go build -o %s ./examples/%s && ./%s\n", name, name, name)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, ExitOK
		}
		return cfg, ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n", name, fs.Args())
		return cfg, ExitUsage
	}
	switch cfg.model {
	case "", "openai", "ollama":
	default:
		fmt.Fprintf(stderr, "%s: -model %q: want openai or ollama\n", name, cfg.model)
		return cfg, ExitUsage
	}
	if cfg.delay < 0 {
		fmt.Fprintf(stderr, "%s: -delay %v: want a duration of zero or more\n", name, cfg.delay)
		return cfg, ExitUsage
	}
	if cfg.mermaid != "" {
		// Checked now, not after the run: a typo should not cost a run.
		if err := checkWritable(cfg.mermaid); err != nil {
			fmt.Fprintf(stderr, "%s: -mermaid %s: cannot write the file: %v\n", name, cfg.mermaid, err)
			return cfg, ExitUsage
		}
	}
	if cfg.resume && cfg.thread == "" {
		fmt.Fprintf(stderr, "%s: -resume needs -thread ID (the id printed when the run started)\n", name)
		return cfg, ExitUsage
	}
	if cfg.thread == "" {
		cfg.thread = newThreadID()
	}
	return cfg, -1
}

// newThreadID returns a fresh thread id such as "o1001-3f9a2c1b".
func newThreadID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "o1001-" + hex.EncodeToString(b)
}

// resumeCommand is the command that continues the thread.
func (c config) resumeCommand() string {
	cmd := c.prog.command() + " -resume -thread " + c.thread
	if c.db != defaultDB {
		cmd += " -db " + c.db
	}
	if c.model != "" {
		cmd += " -model " + c.model
	}
	if c.rounds {
		cmd += " -rounds"
	}
	return cmd
}
