package server_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// database/sql's connection opener of the SQLite stores, closed
		// with them, may still be winding down.
		goleak.IgnoreTopFunction("database/sql.(*DB).connectionOpener"),
	)
}
