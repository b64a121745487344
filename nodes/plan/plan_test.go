package plan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStepStatus(t *testing.T) {
	t.Parallel()
	require.True(t, StepStatus("").Valid())
	require.False(t, StepStatus("done").Valid())
	require.True(t, StatusSkipped.Terminal())
	require.False(t, StatusRunning.Terminal())
}
