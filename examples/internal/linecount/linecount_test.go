package linecount_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stategraph/stategraph/examples/internal/linecount"
)

func TestCount(t *testing.T) {
	t.Parallel()
	goSrc := "// Doc.\npackage main\n\nimport (\n\t\"fmt\"\n)\n\nfunc main() {\n\t// say hi\n\tfmt.Println(\"hi\")\n}\n"
	assert.Equal(t, 3, linecount.Count(goSrc, false))
	pySrc := "from x import y\nimport z\n\ndef f(a):\n    \"\"\"Doc.\"\"\"\n    # comment\n    return a\n\"\"\"long\ndoc\"\"\"\nprint(f(1))\n"
	assert.Equal(t, 3, linecount.Count(pySrc, true))
}
