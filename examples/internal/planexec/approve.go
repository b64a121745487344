package planexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// asker asks yes/no questions on the terminal.
type asker struct {
	in  *bufio.Reader
	out io.Writer
}

func newAsker(in io.Reader, out io.Writer) *asker {
	return &asker{in: bufio.NewReader(in), out: out}
}

// ask prints the question and reads y or n from standard input, asking
// again after anything else. It returns ctx's error when ctx is done
// first (Ctrl-C at the prompt), and an error at the end of the input.
func (a *asker) ask(ctx context.Context, question string) (bool, error) {
	type reply struct {
		line string
		err  error
	}
	for {
		fmt.Fprintf(a.out, "%s [y/n] ", question)
		ch := make(chan reply, 1)
		go func() {
			line, err := a.in.ReadString('\n')
			ch <- reply{line, err}
		}()
		var rep reply
		select {
		case <-ctx.Done():
			fmt.Fprintln(a.out)
			return false, ctx.Err()
		case rep = <-ch:
		}
		fmt.Fprintln(a.out) // the reply's own newline is not echoed when stdin is not a terminal
		switch strings.ToLower(strings.TrimSpace(rep.line)) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		if rep.err != nil {
			if errors.Is(rep.err, io.EOF) {
				return false, errors.New("standard input ended")
			}
			return false, rep.err
		}
		fmt.Fprintln(a.out, "Please answer y or n.")
	}
}
