package procid

import (
	"os"
	"strconv"
	"strings"
)

// bootID is the kernel's id of this boot.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// startOf is the start time of process pid, in clock ticks since boot
// (field 22 of /proc/pid/stat), or "" if it cannot be read.
func startOf(pid int) string {
	s, _ := probe(pid)
	return s
}

// probe reads the start time of process pid and whether it exists.
func probe(pid int) (start string, exists bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", !os.IsNotExist(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", true
	}
	f := strings.Fields(string(b[i+1:]))
	const startField = 22 - 3 // fields after the name begin at 3
	if len(f) <= startField {
		return "", true
	}
	if f[0] == "Z" || f[0] == "X" { // a zombie's or dead process's pid: it has ended
		return "", false
	}
	return f[startField], true
}
