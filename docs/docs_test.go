package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestDocCodeIsRealCode checks that each line of each Go block in the docs
// and the README is a line of some Go file of the repository, so the
// snippets cannot drift from code that compiles and is tested.
func TestDocCodeIsRealCode(t *testing.T) {
	t.Parallel()
	lines := map[string]bool{}
	require.NoError(t, filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(src), "\n") {
				lines[norm(l)] = true
			}
		}
		return nil
	}))
	pages, err := filepath.Glob("*.md")
	require.NoError(t, err)
	pages = append(pages, "../README.md")
	var missing []string
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range goBlock.FindAllStringSubmatch(string(text), -1) {
			for _, l := range strings.Split(m[1], "\n") {
				n := norm(l)
				if n == "" || strings.HasPrefix(n, "//") || n == "}" || n == ")" || n == "{" || n == "…" {
					continue
				}
				if !lines[n] {
					missing = append(missing, page+": "+strings.TrimSpace(l))
				}
			}
		}
	}
	require.Empty(t, missing, "lines of Go blocks in the docs that are in no Go file of the repository")
}

// norm trims a line and drops a trailing comment.
func norm(l string) string {
	l = strings.TrimSpace(l)
	if i := strings.Index(l, " // "); i >= 0 {
		l = strings.TrimSpace(l[:i])
	}
	return l
}
