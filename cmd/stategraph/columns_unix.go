//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// columns returns the width of the terminal f, or 0 if it cannot tell.
func columns(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
