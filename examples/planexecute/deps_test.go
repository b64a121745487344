package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxModules is the most modules besides this one the README's first
// command may need (docs/performance.md, "First contact"; .ci/run checks
// the download itself in an empty module cache).
const maxModules = 20

// serverOnly are the modules an offline SQLite program must not link: the
// PostgreSQL driver, the OpenTelemetry SDK and exporters (examples/tracing
// has them) and what they bring.
var serverOnly = []string{
	"github.com/jackc/pgx/v5",
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
	"go.opentelemetry.io/otel/sdk",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
	"go.opentelemetry.io/proto/otlp",
	"github.com/riverqueue/river",
}

func TestOfflineProgramNeedsFewModulesAndNoServerOnes(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").Output()
	require.NoError(t, err)
	var mods []string
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/stategraph/stategraph" && !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	for _, m := range serverOnly {
		assert.NotContains(t, mods, m, "go mod why -m %s names the import that brings it", m)
	}
	assert.LessOrEqual(t, len(mods), maxModules, "modules: %v", mods)
}
