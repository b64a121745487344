package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/stategraph/stategraph/server"
	storepostgres "github.com/stategraph/stategraph/store/postgres"
	storesqlite "github.com/stategraph/stategraph/store/sqlite"
	"github.com/stategraph/stategraph/worker"
)

const serveUsage = `usage: stategraph serve [-db PATH [-store PATH] | -dsn DSN [-schema NAME] [-workers N]] [-addr HOST:PORT] [-allow-remote] [-mcp=false] [-a2a=false] [-model openai|ollama] [-record]

Serve the example graphs (planexecute, support, essay, chat) over LangGraph's
Agent Server API, for @langchain/langgraph-sdk, langgraph-sdk and
useStream clients (see docs/server.md), over MCP at /mcp, where each
graph is a tool (see docs/mcp.md), and over A2A at /a2a/{assistant_id},
where each graph is an agent (see docs/a2a.md). By default runs execute in this
process and checkpoints and thread records are kept in SQLite files,
created if missing. With -dsn everything is kept in PostgreSQL and runs
are River jobs that any serve process on the database executes: start
as many replicas as you like, each serves every thread and run. There is
no authentication: the server listens on loopback only unless
-allow-remote is given.

  -db PATH        the SQLite checkpoint file (default stategraph.db); the store API's items go
                  beside it (PATH with .items.db)
  -store PATH     the SQLite file of thread and run records (default: PATH of -db with .server.db)
  -dsn DSN        keep checkpoints, records and run events in this PostgreSQL database instead
  -schema NAME    the PostgreSQL schema of their tables (default: search_path)
  -workers N      with -dsn: how many runs this process executes at once (default 10; 0: API only,
                  other processes execute the runs)
  -addr HOST:PORT where to listen (default 127.0.0.1:2024)
  -allow-remote   listen on a non-loopback address (anyone who reaches it can run the graphs)
  -mcp=false      do not serve the MCP endpoint /mcp
  -a2a=false      do not serve the A2A endpoints /a2a/{assistant_id}
  -record         record chat's and planexecute's model and tool calls with their threads, for
                  stategraph replay THREAD (package replay)
` + modelUsage + "\n"

// defaultServeWorkers is -workers with -dsn when not given.
const defaultServeWorkers = 10

// serveConfig is what serve runs with.
type serveConfig struct {
	db, store, addr string
	dsn, schema     string
	workers         int // with dsn
	allowRemote     bool
	noMCP           bool   // -mcp=false: no /mcp
	noA2A           bool   // -a2a=false: no /a2a
	model           string // the chat assistant's model: "" (scripted), openai, ollama
	record          bool   // -record: servegraphs.Recorded
}

// modelUsage is the -model flag of serve and studio.
const modelUsage = `  -model NAME     the chat assistant's model: openai (OPENAI_API_KEY, OPENAI_MODEL, OPENAI_BASE_URL)
                  or ollama (OLLAMA_HOST, OLLAMA_MODEL); default a scripted model, offline`

// chatGraphs returns the served graphs, the chat assistant on the model
// -model names.
func chatGraphs(saver checkpoint.Saver, model string, opts ...servegraphs.Option) ([]server.Graph, string, error) {
	m, about, err := chatdemo.Model(model, os.Getenv)
	if err != nil {
		return nil, "", err
	}
	graphs, err := servegraphs.Graphs(saver, append([]servegraphs.Option{servegraphs.ChatModel(m)}, opts...)...)
	return graphs, about, err
}

// parseServe parses serve's flags over the database flags given before
// the command.
func parseServe(args []string, c serveConfig) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.db, "db", c.db, "")
	fs.StringVar(&c.dsn, "dsn", c.dsn, "")
	fs.StringVar(&c.schema, "schema", c.schema, "")
	fs.StringVar(&c.store, "store", "", "")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:2024", "")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "")
	fs.IntVar(&c.workers, "workers", defaultServeWorkers, "")
	fs.StringVar(&c.model, "model", "", "")
	fs.BoolVar(&c.record, "record", false, "")
	mcpOn := fs.Bool("mcp", true, "")
	a2aOn := fs.Bool("a2a", true, "")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.noMCP = !*mcpOn
	c.noA2A = !*a2aOn
	workersSet := false
	fs.Visit(func(f *flag.Flag) { workersSet = workersSet || f.Name == "workers" })
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if c.dsn != "" {
		if c.workers < 0 {
			return c, fmt.Errorf("serve: -workers %d: want 0 (API only) or more", c.workers)
		}
	} else {
		if workersSet {
			return c, errors.New("serve: -workers needs -dsn (on SQLite, runs execute in this process)")
		}
		c.workers = 0
	}
	if err := c.settle("serve", "server"); err != nil {
		return c, err
	}
	return c, nil
}

// settle checks the storage and address flags serve and studio share and
// fills in the SQLite defaults. cmd names the command in its errors; what
// is what listens without authentication.
func (c *serveConfig) settle(cmd, what string) error {
	if c.dsn != "" {
		if c.db != "" || c.store != "" {
			return fmt.Errorf("%s: give either -db (SQLite) or -dsn (PostgreSQL), not both", cmd)
		}
	} else {
		if c.schema != "" {
			return fmt.Errorf("%s: -schema needs -dsn", cmd)
		}
		if c.db == "" {
			c.db = "stategraph.db"
		}
		if c.store == "" {
			c.store = strings.TrimSuffix(c.db, ".db") + ".server.db"
		}
	}
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return fmt.Errorf("%s: -addr %q: %v", cmd, c.addr, err)
	}
	if !c.allowRemote && !isLoopback(host) {
		return fmt.Errorf("%s: -addr %q is not a loopback address and the %s has no authentication: give -allow-remote to serve it anyway", cmd, c.addr, what)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runServe runs `stategraph serve` until ctx is done.
func runServe(ctx context.Context, args []string, global serveConfig, stdout, stderr io.Writer) int {
	c, err := parseServe(args, global)
	return runListening("serve", serveUsage, err, c.addr, stdout, stderr, func(ln net.Listener) error {
		return serve(ctx, c, ln, stdout)
	})
}

// runListening is the end of a command that serves on an address (serve,
// studio), given what parsing its flags returned: the usage on -h, or a
// usage error, or else it listens on addr and serves until serveOn
// returns.
func runListening(cmd, usage string, parsed error, addr string, stdout, stderr io.Writer, serveOn func(net.Listener) error) int {
	if errors.Is(parsed, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if parsed != nil {
		fmt.Fprint(stderr, usage)
		return report(stderr, usagef(nil, "%v", parsed))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return report(stderr, fmt.Errorf("%s: %w", cmd, err))
	}
	if err := serveOn(ln); err != nil {
		return report(stderr, err)
	}
	return exitOK
}

// serve serves the registry on ln until ctx is done, then stops the runs
// in progress (their threads keep their checkpoints) and closes the files.
func serve(ctx context.Context, c serveConfig, ln net.Listener, stdout io.Writer) (err error) {
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	var saver checkpoint.Saver
	var st server.Store
	var srvOpts []server.Option
	where := fmt.Sprintf("checkpoints %s, records %s", c.db, c.store)
	if c.dsn != "" {
		cfg, perr := pgxpool.ParseConfig(c.dsn)
		if perr != nil {
			return fmt.Errorf("serve: %w", perr)
		}
		if !strings.Contains(c.dsn, "pool_max_conns") {
			// The workers, River, the event listener and the requests.
			cfg.MaxConns = worker.PoolSize(c.workers) + 8
		}
		pool, perr := pgxpool.NewWithConfig(ctx, cfg)
		if perr != nil {
			return fmt.Errorf("serve: %w", perr)
		}
		defer pool.Close()
		var opts []postgres.Option
		if c.schema != "" {
			opts = append(opts, postgres.WithSchema(c.schema))
		}
		pg := postgres.New(pool, opts...)
		if err := pg.Migrate(ctx); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		saver = pg
		if st, err = server.OpenPostgresStore(ctx, pool, c.schema); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		items, ierr := storepostgres.New(ctx, pool, storepostgres.Config{Schema: c.schema})
		if ierr != nil {
			return fmt.Errorf("serve: %w", ierr)
		}
		srvOpts = append(srvOpts, server.WithStore(items))
		where = fmt.Sprintf("PostgreSQL, %d workers", c.workers)
		if c.workers == 0 {
			where = "PostgreSQL, API only: runs executed by other processes"
		}
		srvOpts = append(srvOpts, server.WithWorkers(c.workers, worker.WithRiverConfig(func(rc *river.Config) {
			rc.Logger = slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: slog.LevelWarn}))
		})))
	} else {
		sq, oerr := sqlite.Open(c.db)
		if oerr != nil {
			return fmt.Errorf("serve: %w", oerr)
		}
		defer func() {
			if cerr := sq.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("serve: close %s: %w", c.db, cerr)
			}
		}()
		saver = sq
		records, serr := server.OpenSQLiteStore(c.store)
		if serr != nil {
			return fmt.Errorf("serve: %w", serr)
		}
		defer records.Close()
		st = records
		items, ierr := storesqlite.Open(ctx, strings.TrimSuffix(c.db, ".db")+".items.db")
		if ierr != nil {
			return fmt.Errorf("serve: %w", ierr)
		}
		defer items.Close()
		srvOpts = append(srvOpts, server.WithStore(items))
	}
	var gopts []servegraphs.Option
	if c.record {
		gopts = append(gopts, servegraphs.Recorded())
	}
	graphs, chatModel, err := chatGraphs(saver, c.model, gopts...)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	endpoints := ""
	if !c.noMCP {
		srvOpts = append(srvOpts, server.WithMCP())
		endpoints = ", MCP at /mcp"
	}
	if !c.noA2A {
		srvOpts = append(srvOpts, server.WithA2A())
		endpoints += ", A2A at /a2a/{assistant_id}"
	}
	srv, err := server.New(graphs, append([]server.Option{server.WithRecords(st)}, srvOpts...)...)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "stategraph serve: http://%s (graphs planexecute, support, essay, chat on %s; %s%s)\n", ln.Addr(), chatModel, where, endpoints)
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
