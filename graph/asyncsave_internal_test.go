package graph

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestInBackgroundOnlyWhenBothTheSaveAndTheNodesTakeTime(t *testing.T) {
	t.Parallel()
	const slow, quick = time.Millisecond, time.Microsecond
	cases := []struct {
		name                  string
		tasksTimed, saveTimed bool
		tasks, save           time.Duration
		always                bool
		want                  bool
	}{
		{name: "nothing timed yet", want: true},
		{name: "no node timed yet", saveTimed: true, save: quick, want: true},
		{name: "no save timed yet", tasksTimed: true, tasks: quick, want: true},
		{name: "quick nodes, quick save", tasksTimed: true, saveTimed: true, tasks: quick, save: quick, want: false},
		{name: "quick nodes, slow save", tasksTimed: true, saveTimed: true, tasks: quick, save: slow, want: false},
		{name: "slow nodes, quick save", tasksTimed: true, saveTimed: true, tasks: slow, save: quick, want: false},
		{name: "slow nodes, slow save", tasksTimed: true, saveTimed: true, tasks: slow, save: slow, want: true},
		{name: "both at the threshold", tasksTimed: true, saveTimed: true, tasks: asyncMinOverlap, save: asyncMinOverlap, want: true},
		{name: "just under it", tasksTimed: true, saveTimed: true, tasks: slow, save: asyncMinOverlap - 1, want: false},
		{name: "forced by a test", tasksTimed: true, saveTimed: true, tasks: quick, save: quick, always: true, want: true},
	}
	for _, tc := range cases {
		r := &run[int]{c: &Compiled[int]{alwaysInBackground: tc.always}, tasksTimed: tc.tasksTimed, tasksTook: tc.tasks}
		p := &persist[int]{r: r, saveTimed: tc.saveTimed, lastSave: tc.save}
		require.Equal(t, tc.want, p.inBackground(), tc.name)
	}
}
