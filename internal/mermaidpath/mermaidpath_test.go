package mermaidpath

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

func TestDrawWithoutTriggersJoinsEveryTaskToTheNext(t *testing.T) {
	t.Parallel()
	// A checkpoint written before triggers were recorded: names once per
	// step, no __triggers__.
	path := []checkpoint.Metadata{
		{Source: checkpoint.SourceInput, Step: -1},
		{Source: checkpoint.SourceLoop, Step: 0},
		{Source: checkpoint.SourceLoop, Step: 1, Nodes: []string{"a", "b"}},
		{Source: checkpoint.SourceLoop, Step: 2, Nodes: []string{"c"}},
	}
	got := Draw(path, nil)
	assert.Contains(t, got, "\t__start__ --> s1_a;\n\t__start__ --> s1_b;\n\ts1_a --> s2_c;\n\ts1_b --> s2_c;\n\ts2_c --> __end__;\n")
}

func TestDrawFollowsTriggersAfterAJSONRoundTrip(t *testing.T) {
	t.Parallel()
	md := checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, Nodes: []string{"a", "b"},
		Extra: map[string]any{TriggersKey: []any{[]any{"c", 0}, []any{"d", 1}, []any{"w", 1}, []any{"w", 1}}}}
	data, err := json.Marshal(md)
	require.NoError(t, err)
	var back checkpoint.Metadata
	require.NoError(t, json.Unmarshal(data, &back))
	trig, ok := Triggers(back)
	require.True(t, ok)
	assert.Equal(t, []Trigger{{Node: "c", From: []int{0}}, {Node: "d", From: []int{1}}, {Node: "w", From: []int{1}}, {Node: "w", From: []int{1}}}, trig)

	path := []checkpoint.Metadata{{Source: checkpoint.SourceLoop, Step: 0}, back,
		{Source: checkpoint.SourceLoop, Step: 2, Nodes: []string{"c", "d", "w", "w"}}}
	got := Draw(path, nil)
	assert.Contains(t, got, "\ts2_w\\7c2[\"w #2 · step 2\"]\n")
	assert.Contains(t, got, "\ts1_a --> s2_c;\n\ts1_b --> s2_d;\n\ts1_b --> s2_w;\n\ts1_b --> s2_w\\7c2;\n")
	assert.NotContains(t, got, "s1_a --> s2_d")
}

func TestDrawIgnoresTriggersThatDoNotMatchTheNextStep(t *testing.T) {
	t.Parallel()
	for name, extra := range map[string]any{
		"other nodes":  []any{[]any{"x", 0}},
		"bad position": []any{[]any{"c", 7}},
		"not a list":   "c<-a",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := []checkpoint.Metadata{
				{Source: checkpoint.SourceLoop, Step: 1, Nodes: []string{"a", "b"}, Extra: map[string]any{TriggersKey: extra}},
				{Source: checkpoint.SourceLoop, Step: 2, Nodes: []string{"c"}},
			}
			assert.Contains(t, Draw(path, nil), "\ts1_a --> s2_c;\n\ts1_b --> s2_c;\n")
		})
	}
}

func TestDrawPendingTasksOneBoxEach(t *testing.T) {
	t.Parallel()
	path := []checkpoint.Metadata{{Source: checkpoint.SourceLoop, Step: 1, Nodes: []string{"fan"}}}
	got := Draw(path, []string{"w", "w"})
	assert.Contains(t, got, "\ts2_w[\"w · step 2 (pending)\"]:::pending\n\ts2_w\\7c2[\"w #2 · step 2 (pending)\"]:::pending\n")
	assert.Contains(t, got, "\ts1_fan -.-> s2_w;\n\ts1_fan -.-> s2_w\\7c2;\n")
}
