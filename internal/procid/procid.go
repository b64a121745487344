// Package procid names a process so that another process on the same
// machine can tell whether it still runs: the machine (its boot, where the
// system says it), the process id and the process's start time, so that a
// process id the system gave again to a later process is not mistaken for
// the first. Holders of leases and owners of run records are named with it.
package procid

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// An ID is "host/pid/start": host names the machine (and its boot, where
// the system tells it), pid the process, start its start time in the
// system's units ("" where the system does not tell it). It contains no
// control characters and no spaces.

// Self returns the ID of this process.
func Self() string { return self() }

var self = sync.OnceValue(func() string {
	return host() + "/" + strconv.Itoa(os.Getpid()) + "/" + startOf(os.Getpid())
})

// host names this machine: its host name and, where the system tells it,
// its boot, so that a process of an earlier boot is known gone.
var host = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "unknown-host"
	}
	if b := bootID(); b != "" {
		h += "@" + b
	}
	return clean(h)
})

// clean drops from s what an ID may not contain ('/', spaces, control
// characters).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

// Gone reports whether the process id names is known to have ended: it ran
// on this machine (in this boot) and no process has its pid now, or the
// process with its pid started at another time. An ID of another machine,
// a malformed one, or a process the system cannot tell about is not known
// gone: for those, only time tells (a lease's expiry).
func Gone(id string) bool {
	h, rest, ok := strings.Cut(id, "/")
	if !ok || h != host() || !strings.Contains(h, "@") {
		return false // another machine, or a boot this system cannot tell
	}
	p, start, ok := strings.Cut(rest, "/")
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return start != startOf(pid) // this process, or one before it with our pid
	}
	now, exists := probe(pid)
	if !exists {
		return true
	}
	return start != "" && now != "" && now != start
}
