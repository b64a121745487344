package postgres

import (
	"context"
)

// MigrateTo brings the tables to schema version n only, as a release of
// that version did, for tests of later migrations.
func (s *Saver) MigrateTo(ctx context.Context, n int) error {
	set := s.migrations()
	set.Steps = migrations[:n]
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

// SchemaVersionOf returns the schema version the tables are at.
func (s *Saver) SchemaVersionOf(ctx context.Context) (int, error) {
	return s.migrations().Version(ctx, s.pool)
}

// ChainWindow is how many blobs a page of one checkpoint reads in one
// range scan for a delta chain.
const ChainWindow = chainWindow
