package postgres

import (
	"context"

	"github.com/stategraph/stategraph/internal/migrate"
)

// MigrateTo brings the tables to schema version n only, as a release of
// that version did, for tests of later migrations.
func (s *Saver) MigrateTo(ctx context.Context, n int) error {
	set := migrate.Set{Table: s.t.migrations, Schema: s.schema, Lock: s.lock, Steps: migrations[:n], Expand: s.expand}
	return set.Up(ctx, s.pool)
}

// PagesEnd returns how many checkpoints the first n pages of a List hold.
func PagesEnd(n int) int {
	total, size := 0, 0
	for range n {
		size = nextPage(size)
		total += size
	}
	return total
}
