package remote_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// database/sql's connection opener of the SQLite savers, closed
		// with them, may still be winding down.
		goleak.IgnoreTopFunction("database/sql.(*DB).connectionOpener"),
	)
}
