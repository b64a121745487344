package nodes_test

import (
	"github.com/stategraph/stategraph/nodes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBudgetCheckNamesEachBudget(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		budget nodes.Budget
		usage  nodes.Usage
		now    time.Time
		want   string // budget name, "" for no stop
		msg    string
	}{
		{"nothing spent", nodes.Budget{MaxModelCalls: 3, MaxToolCalls: 3, MaxReplans: 1, MaxWall: time.Minute}, nodes.Usage{Start: t0}, t0, "", ""},
		{"zero budget means unlimited", nodes.Budget{MaxRoundsWithoutProgress: -1}, nodes.Usage{Start: t0, ModelCalls: 1e6, ToolCalls: 1e6, Replans: 1e6, RoundsWithoutProgress: 1e6}, t0.Add(1e6 * time.Hour), "", ""},
		{"model calls", nodes.Budget{MaxModelCalls: 3}, nodes.Usage{ModelCalls: 3}, t0, nodes.BudgetModelCalls, "nodes: stopped by budget max_model_calls: used 3 of 3"},
		{"tool calls", nodes.Budget{MaxToolCalls: 20}, nodes.Usage{ToolCalls: 21}, t0, nodes.BudgetToolCalls, "used 21 of 20"},
		{"replans over the limit", nodes.Budget{MaxReplans: 2}, nodes.Usage{Replans: 3}, t0, nodes.BudgetReplans, "used 3 of 2"},
		{"replans at the limit do not stop", nodes.Budget{MaxReplans: 2}, nodes.Usage{Replans: 2}, t0, "", ""},
		{"wall time", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Start: t0}, t0.Add(5 * time.Minute), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"wall time accumulated, clock stopped", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 5 * time.Minute}, t0.Add(time.Hour), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"a paused clock does not run", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 4 * time.Minute}, t0.Add(time.Hour), "", ""},
		{"wall time accumulated plus the running clock", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 4 * time.Minute, Start: t0}, t0.Add(time.Minute), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"rounds without progress, default 2", nodes.Budget{}, nodes.Usage{RoundsWithoutProgress: 2}, t0, nodes.BudgetRoundsWithoutProgress, "used 2 of 2"},
		{"rounds without progress, one allowed", nodes.Budget{MaxRoundsWithoutProgress: 1}, nodes.Usage{RoundsWithoutProgress: 1}, t0, nodes.BudgetRoundsWithoutProgress, "used 1 of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.budget.Check(tt.usage, tt.now)
			if tt.want == "" {
				require.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			require.Equal(t, tt.want, r.Budget)
			require.Contains(t, r.Error(), tt.msg)
		})
	}
}

func TestBudgetCanReplan(t *testing.T) {
	t.Parallel()
	require.Nil(t, nodes.Budget{}.CanReplan(nodes.Usage{Replans: 100}))
	require.Nil(t, nodes.Budget{MaxReplans: 2}.CanReplan(nodes.Usage{Replans: 1}))
	r := nodes.Budget{MaxReplans: 2}.CanReplan(nodes.Usage{Replans: 2})
	require.Equal(t, nodes.BudgetReplans, r.Budget)
}

func TestUsage(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(100, 0)
	u := nodes.Usage{Start: t0.Add(time.Second), ModelCalls: 1, Wall: time.Second}.Add(nodes.Usage{Start: t0, ToolCalls: 2, PromptTokens: 5, Wall: 2 * time.Second})
	require.Equal(t, nodes.Usage{Start: t0, ModelCalls: 1, ToolCalls: 2, PromptTokens: 5, Wall: 3 * time.Second}, u)
	u = u.EndRound(false).EndRound(false)
	require.Equal(t, 2, u.RoundsWithoutProgress)
	u = u.EndRound(true)
	require.Equal(t, 0, u.RoundsWithoutProgress)
	require.Equal(t, 3, u.Rounds)
	u = u.AddTokens(nodes.Tokens{Prompt: 1, Completion: 2, Total: 3})
	require.Equal(t, 6, u.PromptTokens)
	require.Equal(t, 3, u.TotalTokens)
}
