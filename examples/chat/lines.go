package main

import (
	"bufio"
	"context"
	"io"
)

// lines reads standard input a line at a time in a goroutine of its own,
// so that a prompt waiting for a line gives up when the context is
// cancelled (Ctrl-C) instead of blocking in a read.
type lines struct {
	ch  chan string
	err error // the read error that ended the input; set before ch closes
}

// newLines starts reading r.
func newLines(r io.Reader) *lines {
	l := &lines{ch: make(chan string)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.ch <- sc.Text()
		}
		l.err = sc.Err()
		close(l.ch)
	}()
	return l
}

// next returns the next line, ok false at the end of the input (with the
// error that ended it, if any), or ctx's error once ctx is done.
func (l *lines) next(ctx context.Context) (line string, ok bool, err error) {
	select {
	case <-ctx.Done():
		return "", false, ctx.Err()
	case line, ok := <-l.ch:
		if !ok {
			return "", false, l.err
		}
		return line, true, nil
	}
}
