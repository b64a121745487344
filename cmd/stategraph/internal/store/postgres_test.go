package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactDSNHidesThePassword(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"postgres://u:secret@h:5432/db":           "postgres://u:xxxxx@h:5432/db",
		"postgresql://u@h/db?password=secret":     "postgresql://u@h/db?password=xxxxx",
		"postgres://u:secret@h:notaport/db":       "postgres://u:xxxxx@h:notaport/db",
		"postgres://u@h/db":                       "postgres://u@h/db",
		"host=h user=u password=secret dbname=db": "host=h user=u password=xxxxx dbname=db",
		"host=h password = 'se cret' dbname=db":   "host=h password = xxxxx dbname=db",
		"host=h dbname=db":                        "host=h dbname=db",
	}
	for in, want := range cases {
		assert.Equal(t, want, RedactDSN(in), in)
	}
}
