package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLineNamesTheModuleVersion(t *testing.T) {
	t.Parallel()
	platform := " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"installed at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.1"}}, true, "stategraph v0.4.1"},
		{"a pseudo-version holding the revision", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261207142211-0123456789ab"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}}}, true, "stategraph v0.0.0-20261207142211-0123456789ab"},
		{"a checkout with its revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}, true, "stategraph (devel) 0123456789ab modified"},
		{"a checkout without VCS stamping", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "stategraph (devel)"},
		{"no build information", nil, false, "stategraph (version unknown: built without module information)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want+platform, versionLine(tc.info, tc.ok))
		})
	}
}

func TestVersionCommandNeedsNoDatabase(t *testing.T) {
	t.Parallel()
	r := cli(t, nil, "version")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `^stategraph \S.* \(go[^ ]+ [a-z0-9]+/[a-z0-9]+\)\n$`, r.stdout)

	r = cli(t, nil, "version", "extra")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `version: unexpected argument "extra"`)
}
