package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/server"
)

const serveUsage = `usage: stategraph serve [-db PATH] [-store PATH] [-addr HOST:PORT] [-allow-remote]

Serve the example graphs (planexecute, support, essay) over LangGraph's
Agent Server API, for @langchain/langgraph-sdk, langgraph-sdk and
useStream clients (see docs/server.md). Runs execute in this process;
checkpoints and thread records are kept in SQLite files, created if
missing. There is no authentication: the server listens on loopback only
unless -allow-remote is given.

  -db PATH        the SQLite checkpoint file (default stategraph.db)
  -store PATH     the SQLite file of thread and run records (default: PATH of -db with .server.db)
  -addr HOST:PORT where to listen (default 127.0.0.1:2024)
  -allow-remote   listen on a non-loopback address (anyone who reaches it can run the graphs)
`

// serveConfig is what serve runs with.
type serveConfig struct {
	db, store, addr string
	allowRemote     bool
}

func parseServe(args []string, dbPath string) (serveConfig, error) {
	c := serveConfig{db: dbPath}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.db, "db", c.db, "")
	fs.StringVar(&c.store, "store", "", "")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:2024", "")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if c.db == "" {
		c.db = "stategraph.db"
	}
	if c.store == "" {
		c.store = strings.TrimSuffix(c.db, ".db") + ".server.db"
	}
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return c, fmt.Errorf("serve: -addr %q: %v", c.addr, err)
	}
	if !c.allowRemote && !isLoopback(host) {
		return c, fmt.Errorf("serve: -addr %q is not a loopback address and the server has no authentication: give -allow-remote to serve it anyway", c.addr)
	}
	return c, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runServe runs `stategraph serve` until ctx is done.
func runServe(ctx context.Context, args []string, dbPath, dsn string, stdout, stderr io.Writer) int {
	if dsn != "" {
		return report(stderr, usagef(nil, "serve: PostgreSQL (-dsn) is not supported by serve yet: give -db PATH"))
	}
	c, err := parseServe(args, dbPath)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, serveUsage)
		return exitOK
	}
	if err != nil {
		fmt.Fprint(stderr, serveUsage)
		return report(stderr, usagef(nil, "%v", err))
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return report(stderr, fmt.Errorf("serve: %w", err))
	}
	if err := serve(ctx, c, ln, stdout); err != nil {
		return report(stderr, err)
	}
	return exitOK
}

// serve serves the registry on ln until ctx is done, then stops the runs
// in progress (their threads keep their checkpoints) and closes the files.
func serve(ctx context.Context, c serveConfig, ln net.Listener, stdout io.Writer) (err error) {
	saver, err := sqlite.Open(c.db)
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	defer func() {
		if cerr := saver.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("serve: close %s: %w", c.db, cerr)
		}
	}()
	st, err := server.OpenSQLiteStore(c.store)
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	defer st.Close()
	graphs, err := servegraphs.Graphs(saver)
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	srv, err := server.New(graphs, server.WithStore(st))
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "stategraph serve: http://%s (graphs planexecute, support, essay; checkpoints %s, records %s)\n", ln.Addr(), c.db, c.store)
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
