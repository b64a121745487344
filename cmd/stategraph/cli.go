package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/store"
)

// env is what a command runs with: the open database, where to print,
// and the parsed flags.
type env struct {
	store *store.Store
	out   io.Writer
	json  bool
	keep  keepFlag    // prune --keep
	older olderFlag   // prune --older-than
	ns    string      // -ns of the commands that read one namespace
	limit limitFlag   // history -n / --limit
	yes   bool        // delete -yes
	field string      // state -field
	rp    replayFlags // replay -list, -graph, -from
	// width is how many columns tables must fit in (0: no limit), and
	// term is where delete asks for confirmation.
	width int
	term  terminal
	// errOut is where questions to the user go (standard error).
	errOut io.Writer
}

// globals are the database flags, accepted before or after the command.
type globals struct {
	db, dsn, schema string
	keys            keyFlags
}

// register adds the database flags and -json to fs, keeping the values
// an earlier parse set.
func (g *globals) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&g.db, "db", g.db, "a SQLite checkpoint `PATH` (it must exist)")
	fs.StringVar(&g.dsn, "dsn", g.dsn, "a PostgreSQL `DSN` (default: $"+dsnEnv+")")
	fs.StringVar(&g.schema, "schema", g.schema, "the PostgreSQL schema `NAME` of the stategraph tables")
	fs.BoolVar(&e.json, "json", e.json, "print JSON instead of tables")
	g.keys.register(fs)
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
		threadsCmd, historyCmd, stateCmd, diffCmd, mermaidCmd, deleteCmd, pruneCmd, verifyCmd, replayCmd,
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

// run runs the command line args and returns the exit status, on the
// process's terminal (standard input, and standard output's width).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runOn(ctx, osTerminal(stdout), args, stdout, stderr, getenv)
}

// runOn is run on the terminal term.
func runOn(ctx context.Context, term terminal, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{out: stdout, errOut: stderr, term: term, width: tableWidth(term, getenv)}
	var g globals
	fs := flag.NewFlagSet(progName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs, e)
	nsFlag(fs, e)
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
		return help(stdout, stderr, rest[1:])
	}
	if rest[0] == "version" {
		return runVersion(stdout, stderr, rest[1:])
	}
	if rest[0] == "studio" {
		return runStudio(ctx, rest[1:], studioConfig{serveConfig: serveConfig{db: g.db, dsn: g.dsn, schema: g.schema}, keys: g.keys}, stdout, stderr, getenv)
	}
	if rest[0] == "serve" {
		return runServe(ctx, rest[1:], serveConfig{db: g.db, dsn: g.dsn, schema: g.schema}, stdout, stderr)
	}
	cmd := lookup(rest[0])
	if cmd == nil {
		return report(stderr, usagef(nil, "unknown command %q", rest[0]))
	}
	pos, err := parseCommand(cmd, e, &g, rest[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(stdout, cmd)
		return exitOK
	}
	if err != nil {
		return report(stderr, err)
	}

	dbPath, dsn, schema := g.db, g.dsn, g.schema
	if dbPath != "" && (dsn != "" || schema != "") {
		return report(stderr, usagef(nil, "give either -db (SQLite) or -dsn (PostgreSQL), not both"))
	}
	if dbPath == "" && dsn == "" {
		dsn = getenv(dsnEnv)
	}
	if dbPath == "" && dsn == "" {
		return report(stderr, usagef(nil, "no database: give -db PATH (SQLite) or -dsn DSN (PostgreSQL), or set %s", dsnEnv))
	}
	if err := g.keys.resolve(getenv); err != nil {
		return report(stderr, err)
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
	st.Saver = g.keys.wrap(st.Saver)
	e.store = st
	err = cmd.run(ctx, e, pos)
	if err != nil && g.keys.ring == nil && sealed(ctx, st) {
		err = fmt.Errorf("%w (%s is encrypted by checkpoint/encrypt: give its keys with -key-file PATH or $%s)", err, st.Name, keyFileEnv)
	}
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", st.Name, cerr)
	}
	if err != nil {
		return report(stderr, err)
	}
	return exitOK
}

// isNegativeInt reports whether arg is a negative integer, as the input
// checkpoint's step -1 is: an argument, never a flag.
func isNegativeInt(arg string) bool {
	n, err := strconv.Atoi(arg)
	return err == nil && n < 0
}

// help prints the usage, or with a command's name that command's.
func help(stdout, stderr io.Writer, args []string) int {
	switch {
	case len(args) == 0:
		printUsage(stdout)
		return exitOK
	case len(args) > 1:
		return report(stderr, usagef(nil, "help: want one command, not %q", args))
	}
	cmd := lookup(args[0])
	if cmd == nil {
		return report(stderr, usagef(nil, "help: unknown command %q", args[0]))
	}
	printCommandUsage(stdout, cmd)
	return exitOK
}

// parseCommand parses a command's flags and the database flags, which
// may come before, between or after its positional arguments, and
// checks the number of arguments.
func parseCommand(cmd *command, e *env, g *globals, args []string) ([]string, error) {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs, e)
	if cmd.flags != nil {
		cmd.flags(fs, e)
	}
	if e.ns != "" && fs.Lookup("ns") == nil {
		return nil, usagef(cmd, "%s: flag provided but not defined: -ns (%s reads no namespace)", cmd.name, cmd.name)
	}
	var pos []string
	for {
		if len(args) > 0 && isNegativeInt(args[0]) {
			pos = append(pos, args[0]) // a step such as -1, not a flag
			args = args[1:]
			continue
		}
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
