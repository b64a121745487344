// Package planexec is the plan-and-execute example program: its flags, its
// run with progress lines, the approval prompt, Ctrl-C and -resume. Two
// programs are built from it: examples/planexecute, which imports nothing
// a SQLite program run offline does not need, and examples/tracing, the
// same program exporting OpenTelemetry spans (the exporter's modules are
// its own).
package planexec

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
)

// Program is one program built from this package.
type Program struct {
	// Name is the program's directory under examples/ and the prefix of
	// its messages ("planexecute" when empty).
	Name string
	// About is a line the usage message adds after its description.
	About string
	// Flags, when set, adds the program's own flags.
	Flags func(fs *flag.FlagSet)
	// Tracer, when set, traces each invocation.
	Tracer Tracer
}

// name is the program's name.
func (p Program) name() string {
	if p.Name == "" {
		return "planexecute"
	}
	return p.Name
}

// command is the command that runs the program, for hints.
func (p Program) command() string { return "go run ./examples/" + p.name() }

// Invocation is what a Tracer is told about the invocation it traces.
type Invocation struct {
	Thread string // the thread the invocation runs on
	Model  string // -model: "" offline, "openai" or "ollama"
}

// Tracer traces one invocation of the program: the runs it makes (a
// resume after the approval prompt among them) are children of one span.
type Tracer interface {
	// Start begins the invocation's span. It returns the context that
	// carries it, the agent's configuration with its model, tools and
	// replanner instrumented, and the options that observe the graph.
	Start(ctx context.Context, inv Invocation, acfg nodes.AgentConfig) (context.Context, nodes.AgentConfig, []graph.CompileOption, error)
	// Finish ends the span, exports what was not exported yet, and says
	// where the spans went.
	Finish(ctx context.Context) (where string, err error)
}

// Exit runs p as this process's program on its arguments and standard
// streams, and exits with its code. The first Ctrl-C cancels the run
// (which stops at its last checkpoint); a second one kills the process.
func Exit(p Program) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	os.Exit(Main(ctx, p, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main parses args and runs the program until it ends or ctx is
// cancelled (Ctrl-C); it returns the exit code.
func Main(ctx context.Context, p Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseFlags(p, args, stderr)
	if code >= 0 {
		return code
	}
	return run(ctx, cfg, stdin, stdout, stderr)
}
