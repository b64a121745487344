package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/store"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/studio"
	"github.com/stategraph/stategraph/telemetry"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

const studioUsage = `usage: stategraph studio [-db PATH [-store PATH] | -dsn DSN [-schema NAME]] [-addr HOST:PORT] [-allow-remote] [-model openai|ollama]

Open a local web page to watch, inspect, fork and resume threads: the
threads, each thread's timeline of checkpoints with its forks, a
checkpoint's state and what changed, the graph with the path taken and the
running node, pending interrupts. The page is served at /studio/ beside
LangGraph's Agent Server API at / on one port, over the example graphs
(planexecute, support, essay, chat) as stategraph serve serves them; everything
it loads is in this binary. Every thread of the database is listed, also
those another program writes while the studio runs (such as go run
./examples/planexecute): each gets a thread record naming the served
graph whose fields it has, or the graph read-only when no served graph
has them (its checkpoints are shown, runs and edits refused).

The trace view shows the spans of the runs the studio executes and of
another program's runs when its OpenTelemetry exporter sends OTLP/HTTP
(protobuf) to the studio: OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT of
-addr (go run ./examples/tracing does). They are kept in PATH of -db with
.traces.db; with -dsn in memory only, until the studio stops.

  -db PATH        the SQLite checkpoint file (default stategraph.db; created if missing)
  -store PATH     the SQLite file of thread and run records (default: PATH of -db with .server.db)
  -dsn DSN        keep checkpoints and records in this PostgreSQL database instead
  -schema NAME    the PostgreSQL schema of their tables (default: search_path)
  -addr HOST:PORT where to listen (default 127.0.0.1:2024)
  -allow-remote   listen on a non-loopback address (anyone who reaches it can run the graphs)
` + modelUsage + "\n" + keyFlagsUsage

// studioTraceRuns is how many runs' spans the studio keeps for its trace view.
const studioTraceRuns = 500

// studioConfig is what studio runs with: serve's settings and the keys.
type studioConfig struct {
	serveConfig
	keys keyFlags
}

// parseStudio parses studio's flags over the database flags given before
// the command.
func parseStudio(args []string, c studioConfig, getenv func(string) string) (studioConfig, error) {
	fs := flag.NewFlagSet("studio", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.db, "db", c.db, "")
	fs.StringVar(&c.dsn, "dsn", c.dsn, "")
	fs.StringVar(&c.schema, "schema", c.schema, "")
	fs.StringVar(&c.store, "store", "", "")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:2024", "")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "")
	fs.StringVar(&c.model, "model", "", "")
	c.keys.register(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("studio: unexpected argument %q", fs.Arg(0))
	}
	if err := c.settle("studio", "studio"); err != nil {
		return c, err
	}
	if err := c.keys.resolve(getenv); err != nil {
		return c, fmt.Errorf("studio: %w", err)
	}
	return c, nil
}

// runStudio runs `stategraph studio` until ctx is done.
func runStudio(ctx context.Context, args []string, global studioConfig, stdout, stderr io.Writer, getenv func(string) string) int {
	c, err := parseStudio(args, global, getenv)
	return runListening("studio", studioUsage, err, c.addr, stdout, stderr, func(ln net.Listener) error {
		return serveStudio(ctx, c, ln, stdout)
	})
}

// studioBackend is the open databases studio serves from.
type studioBackend struct {
	inspect *store.Store // the checkpoint saver and its thread lister
	saver   checkpoint.Saver
	records server.Store
	where   string
	closers []func() error
}

func (b *studioBackend) Close() error {
	var errs []error
	for i := len(b.closers) - 1; i >= 0; i-- {
		errs = append(errs, b.closers[i]())
	}
	return errors.Join(errs...)
}

// openStudio opens (creating when missing) the checkpoint database and
// the thread records.
func openStudio(ctx context.Context, c studioConfig) (b *studioBackend, err error) {
	b = &studioBackend{}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if c.dsn != "" {
		pool, err := pgxpool.New(ctx, c.dsn)
		if err != nil {
			return nil, fmt.Errorf("studio: %w", err)
		}
		b.closers = append(b.closers, func() error { pool.Close(); return nil })
		var opts []postgres.Option
		if c.schema != "" {
			opts = append(opts, postgres.WithSchema(c.schema))
		}
		if err := postgres.New(pool, opts...).Migrate(ctx); err != nil {
			return nil, fmt.Errorf("studio: %w", err)
		}
		if b.records, err = server.OpenPostgresStore(ctx, pool, c.schema); err != nil {
			return nil, fmt.Errorf("studio: %w", err)
		}
		if b.inspect, err = store.OpenPostgres(ctx, c.dsn, c.schema); err != nil {
			return nil, fmt.Errorf("studio: %w", err)
		}
		b.where = "checkpoints and records in PostgreSQL"
	} else {
		if _, err := os.Stat(c.db); errors.Is(err, fs.ErrNotExist) {
			created, err := sqlite.Open(c.db) // a new, empty checkpoint database
			if err != nil {
				return nil, fmt.Errorf("studio: %w", err)
			}
			if err := created.Close(); err != nil {
				return nil, fmt.Errorf("studio: %w", err)
			}
		}
		if b.inspect, err = store.OpenSQLite(ctx, c.db); err != nil {
			return nil, fmt.Errorf("studio: %w", err)
		}
		records, err := server.OpenSQLiteStore(c.store)
		if err != nil {
			b.inspect.Close()
			return nil, fmt.Errorf("studio: %w", err)
		}
		b.records = records
		b.closers = append(b.closers, records.Close)
		b.where = fmt.Sprintf("checkpoints %s, records %s", c.db, c.store)
	}
	b.closers = append(b.closers, b.inspect.Close)
	b.saver = c.keys.wrap(b.inspect.Saver)
	return b, nil
}

// serveStudio serves the page and the API on ln until ctx is done, then
// stops the runs in progress (their threads keep their checkpoints) and
// closes the databases.
func serveStudio(ctx context.Context, c studioConfig, ln net.Listener, stdout io.Writer) (err error) {
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	b, err := openStudio(ctx, c)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := b.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("studio: close: %w", cerr)
		}
	}()
	// The trace view: the runtime's spans of the runs this process
	// executes, and those other programs export to it over OTLP/HTTP.
	traces := studio.NewTraces(studioTraceRuns)
	kept := "kept in memory only: -dsn keeps no trace file"
	if c.dsn == "" {
		// Kept beside the checkpoints, so a restart still shows them.
		path := strings.TrimSuffix(c.db, ".db") + ".traces.db"
		if err := keepTraces(ctx, b, traces, path); err != nil {
			return err
		}
		kept = "kept in " + path
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(traces))
	defer tp.Shutdown(context.WithoutCancel(ctx))
	graphs, chatModel, err := chatGraphs(b.saver, c.model, servegraphs.Traced(telemetry.New(telemetry.WithTracerProvider(tp))))
	if err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	graphs = withExamples(graphs)
	records, err := newLiveThreads(b.records, b.inspect.Lister, b.saver, graphs)
	if err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	adopted, err := records.sync(ctx)
	if err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	srv, err := server.New(append(graphs, readOnlyGraph{saver: b.saver}), server.WithRecords(records))
	if err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	hs := &http.Server{Handler: studio.Beside(srv, studio.WithTraces(traces)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "stategraph studio: http://%s/studio/ (API at http://%s/; graphs planexecute, support, essay, chat on %s; %s)\n", ln.Addr(), ln.Addr(), chatModel, b.where)
	fmt.Fprintf(stdout, "  traces: this studio's runs, and other programs' with OTEL_EXPORTER_OTLP_ENDPOINT=http://%s; %s\n", ln.Addr(), kept)
	for _, a := range adopted {
		fmt.Fprintf(stdout, "  %s\n", a)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = hs.Shutdown(shutdown)
		<-errc
	}
	srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// keepTraces keeps the runs traces records in the SQLite file path,
// closed with b.
func keepTraces(ctx context.Context, b *studioBackend, traces *studio.Traces, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return fmt.Errorf("studio: traces %s: %w", path, err)
	}
	b.closers = append(b.closers, db.Close)
	if err := traces.Persist(ctx, db); err != nil {
		return fmt.Errorf("studio: traces %s: %w", path, err)
	}
	return nil
}
