package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCronScheduleNext(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 3, 14, 10, 7, 30, 0, time.UTC) // a Saturday
	tests := []struct {
		expr string
		want time.Time
	}{
		{"* * * * *", time.Date(2026, 3, 14, 10, 8, 0, 0, time.UTC)},
		{"*/15 * * * *", time.Date(2026, 3, 14, 10, 15, 0, 0, time.UTC)},
		{"0 9 * * *", time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)},
		{"30 8 * * 1-5", time.Date(2026, 3, 16, 8, 30, 0, 0, time.UTC)},
		{"0 0 1 * *", time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)},
		{"0 12 * * 0", time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)},
		{"0 12 * * 7", time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)},
		{"5,10 10 14 3 *", time.Date(2026, 3, 14, 10, 10, 0, 0, time.UTC)},
		{"0 0 29 2 *", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		s, err := parseSchedule(tt.expr)
		require.NoError(t, err, tt.expr)
		assert.Equal(t, tt.want, s.next(from), tt.expr)
	}
	for _, bad := range []string{"", "* * * *", "60 * * * *", "* 24 * * *", "*/0 * * * *", "a * * * *", "5-1 * * * *", "* * 0 * *"} {
		_, err := parseSchedule(bad)
		assert.Error(t, err, bad)
	}
}
