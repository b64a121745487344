//go:build !unix

package main

import "os"

// columns returns 0, no limit, where the inspector cannot ask a terminal
// its width: $COLUMNS sets one.
func columns(*os.File) int { return 0 }
