package delivery_test

import (
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stretchr/testify/require"
)

func TestDeliveryLabels(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	require.Equal(t, "Tuesday 09:00", c.Label(c.Now))
	require.Equal(t, "Friday 18:00", c.Label(c.Deadline))
	require.Equal(t, "next Monday 18:00", c.Label(*c.Stock["A"].EarliestArrival))
}
