package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/store"
)

// env is what a command runs with: the open database, where to print,
// and the parsed flags.
type env struct {
	store *store.Store
	out   io.Writer
	json  bool
	keep  keepFlag // prune --keep
	ns    string   // -ns of the commands that read one namespace
}

// command is one subcommand.
type command struct {
	name    string
	args    string // the arguments, for usage
	summary string
	min     int // fewest positional arguments
	max     int // most positional arguments
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet, e *env)
	// check validates the flags before the database is opened.
	check func(c *command, e *env) error
	run   func(ctx context.Context, e *env, args []string) error
}

func (c *command) synopsis() string {
	if c.args == "" {
		return c.name
	}
	return c.name + " " + c.args
}

// commands are the subcommands, in the order usage lists them.
var commands []*command

func init() {
	commands = []*command{
		threadsCmd, historyCmd, stateCmd, diffCmd, mermaidCmd, deleteCmd, pruneCmd, verifyCmd,
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{out: stdout}
	var dbPath, dsn, schema string
	fs := flag.NewFlagSet(progName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&dbPath, "db", "", "SQLite checkpoint file")
	fs.StringVar(&dsn, "dsn", "", "PostgreSQL DSN")
	fs.StringVar(&schema, "schema", "", "PostgreSQL schema")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return exitOK
		}
		return report(stderr, usagef(nil, "%v", err))
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return report(stderr, usagef(nil, "no command given"))
	}
	if rest[0] == "help" {
		printUsage(stdout)
		return exitOK
	}
	if rest[0] == "serve" {
		return runServe(ctx, rest[1:], serveConfig{db: dbPath, dsn: dsn, schema: schema}, stdout, stderr)
	}
	cmd := lookup(rest[0])
	if cmd == nil {
		return report(stderr, usagef(nil, "unknown command %q", rest[0]))
	}
	pos, err := parseCommand(cmd, e, rest[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: %s [database flags] %s\n\n%s\n", progName, cmd.synopsis(), cmd.summary)
		return exitOK
	}
	if err != nil {
		return report(stderr, err)
	}

	if dbPath != "" && (dsn != "" || schema != "") {
		return report(stderr, usagef(nil, "give either -db (SQLite) or -dsn (PostgreSQL), not both"))
	}
	if dbPath == "" && dsn == "" {
		dsn = getenv(dsnEnv)
	}
	if dbPath == "" && dsn == "" {
		return report(stderr, usagef(nil, "no database: give -db PATH (SQLite) or -dsn DSN (PostgreSQL), or set %s", dsnEnv))
	}
	var st *store.Store
	if dbPath != "" {
		st, err = store.OpenSQLite(ctx, dbPath)
	} else {
		st, err = store.OpenPostgres(ctx, dsn, schema)
	}
	if err != nil {
		return report(stderr, err)
	}
	e.store = st
	err = cmd.run(ctx, e, pos)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", st.Name, cerr)
	}
	if err != nil {
		return report(stderr, err)
	}
	return exitOK
}

// parseCommand parses a command's flags, which may come before, between
// or after its positional arguments, and checks the number of arguments.
func parseCommand(cmd *command, e *env, args []string) ([]string, error) {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&e.json, "json", e.json, "print JSON")
	if cmd.flags != nil {
		cmd.flags(fs, e)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef(cmd, "%s: %v", cmd.name, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	switch {
	case len(pos) < cmd.min:
		missing := strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(cmd.args))[len(pos)]
		return nil, usagef(cmd, "%s: missing %s", cmd.name, missing)
	case len(pos) > cmd.max:
		return nil, usagef(cmd, "%s: unexpected argument %q", cmd.name, pos[cmd.max])
	}
	for i, p := range pos {
		if p == "" {
			return nil, usagef(cmd, "%s: argument %d is empty", cmd.name, i+1)
		}
	}
	if cmd.check != nil {
		if err := cmd.check(cmd, e); err != nil {
			return nil, err
		}
	}
	return pos, nil
}
