package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/tools"
)

// weather is the canned weather of the cities the example knows.
var weather = map[string]string{
	"oslo":  "sunny, 21°C",
	"paris": "light rain, 16°C",
	"tokyo": "cloudy, 24°C",
	"lima":  "fog, 18°C",
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city, such as Oslo"`
}

type calcArgs struct {
	A  float64 `json:"a"`
	Op string  `json:"op" jsonschema:"enum=+,enum=-,enum=*,enum=/"`
	B  float64 `json:"b"`
}

// slowToolEnv names a tool that, for the tests, blocks until the turn is
// cancelled (Ctrl-C), after printing that it does.
const slowToolEnv = "CHAT_TEST_SLOW_TOOL"

// chatTools are the example's tools; slow names one that blocks (see
// slowToolEnv), out is where it says so.
func chatTools(slow string, out io.Writer) []tools.Tool {
	block := func(ctx context.Context, name string) error {
		if slow != name {
			return nil
		}
		fmt.Fprintf(out, "(test hook) %s blocks until Ctrl-C\n", name)
		<-ctx.Done()
		return context.Cause(ctx)
	}
	return []tools.Tool{
		tool.New("get_weather", "Today's weather in a city.", func(ctx context.Context, a weatherArgs) (string, error) {
			if err := block(ctx, "get_weather"); err != nil {
				return "", err
			}
			w, ok := weather[strings.ToLower(strings.TrimSpace(a.City))]
			if !ok {
				return "", fmt.Errorf("no weather for %q (known: Oslo, Paris, Tokyo, Lima)", a.City)
			}
			return fmt.Sprintf("%s: %s", a.City, w), nil
		}),
		tool.New("calculate", "Arithmetic on two numbers: a op b.", func(ctx context.Context, a calcArgs) (string, error) {
			if err := block(ctx, "calculate"); err != nil {
				return "", err
			}
			var r float64
			switch a.Op {
			case "+":
				r = a.A + a.B
			case "-":
				r = a.A - a.B
			case "*":
				r = a.A * a.B
			case "/":
				if a.B == 0 {
					return "", fmt.Errorf("division by zero")
				}
				r = a.A / a.B
			default:
				return "", fmt.Errorf("unknown operator %q (want + - * /)", a.Op)
			}
			return fmt.Sprintf("%g %s %g = %g", a.A, a.Op, a.B, r), nil
		}),
	}
}
