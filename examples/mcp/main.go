// MCP gives the prebuilt chat agent the tools of an MCP server: a small
// inventory server, written with the official Go SDK, which this program
// starts as a child process and speaks to over stdio, as it would any
// MCP server (an npm package, a Python script, another Go program).
//
//	go run ./examples/mcp
//
// It runs offline: a scripted model asks the stock tool, reserves the
// items with the reserve tool, and answers; a third call asks for more
// than is left, and the server's error reaches the model as a tool
// message instead of failing the run. The program prints the tools as
// the agent sees them (name, side effects from the MCP annotations,
// input schema), then the conversation.
//
// Exit codes: 0 done, 1 failed.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

// serveArg makes the program the inventory MCP server on stdin/stdout.
const serveArg = "serve-inventory"

func main() {
	if len(os.Args) > 1 && os.Args[1] == serveArg {
		if err := serveInventory(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "inventory:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exe, err := os.Executable()
	if err == nil {
		err = run(ctx, exe, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp example:", err)
		os.Exit(1)
	}
}
