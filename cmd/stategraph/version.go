package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion prints the module version the binary was built from, as
// "stategraph VERSION (GO OS/ARCH)".
func runVersion(stdout, stderr io.Writer, args []string) int {
	if len(args) > 0 {
		return report(stderr, usagef(nil, "version: unexpected argument %q", args[0]))
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info, ok))
	return exitOK
}

// versionLine describes the build: the main module's version (a tag when
// installed with go install …@version; "(devel)" when built from a
// checkout, followed by the VCS revision and "modified" when the build
// recorded them), the Go version and the platform.
func versionLine(info *debug.BuildInfo, ok bool) string {
	platform := fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if !ok || info == nil {
		return fmt.Sprintf("%s (version unknown: built without module information) (%s)", progName, platform)
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var vcs []string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			vcs = append([]string{s.Value[:min(12, len(s.Value))]}, vcs...)
		case s.Key == "vcs.modified" && s.Value == "true":
			vcs = append(vcs, "modified")
		}
	}
	if len(vcs) > 0 && !strings.Contains(v, vcs[0]) {
		v += " " + strings.Join(vcs, " ")
	}
	return fmt.Sprintf("%s %s (%s)", progName, v, platform)
}
