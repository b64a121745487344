package main

import (
	"context"
	"fmt"
	"io"

	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/tmc/langchaingo/tools"
)

// slowToolEnv names a tool that, for the tests, blocks until the turn is
// cancelled (Ctrl-C), after printing that it does.
const slowToolEnv = "CHAT_TEST_SLOW_TOOL"

// chatTools are the served chat assistant's tools (get_weather,
// calculate); slow names one that blocks (see slowToolEnv), out is where
// it says so.
func chatTools(slow string, out io.Writer) []tools.Tool {
	return chatdemo.Tools(func(ctx context.Context, name string) error {
		if slow != name {
			return nil
		}
		fmt.Fprintf(out, "(test hook) %s blocks until Ctrl-C\n", name)
		<-ctx.Done()
		return context.Cause(ctx)
	})
}
