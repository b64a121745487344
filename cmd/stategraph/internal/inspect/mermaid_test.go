package inspect

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stategraph/stategraph/checkpoint"
)

func tuple(id, parent string, step int, src checkpoint.Source, nodes ...string) *checkpoint.Tuple {
	t := &checkpoint.Tuple{
		Config:   checkpoint.Config{ThreadID: "t", CheckpointID: id},
		Metadata: checkpoint.Metadata{Source: src, Step: step, Nodes: nodes},
	}
	if parent != "" {
		t.Parent = &checkpoint.Config{ThreadID: "t", CheckpointID: parent}
	}
	return t
}

func TestPathFollowsTheBranchOfTheHead(t *testing.T) {
	t.Parallel()
	in := tuple("1", "", -1, checkpoint.SourceInput)
	a := tuple("2", "1", 0, checkpoint.SourceLoop, "plan")
	b := tuple("3", "2", 1, checkpoint.SourceLoop, "old")
	fork := tuple("4", "2", 0, checkpoint.SourceFork)
	c := tuple("5", "4", 1, checkpoint.SourceLoop, "new x", "other")
	path := Path([]*checkpoint.Tuple{c, fork, b, a, in}, c)
	var ids []string
	for _, p := range path {
		ids = append(ids, p.Config.CheckpointID)
	}
	assert.Equal(t, []string{"1", "2", "4", "5"}, ids)

	got := Mermaid(path, []string{"end"})
	assert.Equal(t, `graph TD;
	__start__([<p>__start__</p>]):::first
	s0_plan["plan · step 0"]
	s1_new\20x["new x · step 1"]
	s1_other["other · step 1"]
	s2_end["end · step 2 (pending)"]:::pending
	__start__ --> s0_plan;
	s0_plan --> s1_new\20x;
	s0_plan --> s1_other;
	s1_new\20x -.-> s2_end;
	s1_other -.-> s2_end;
	classDef first fill-opacity:0
	classDef last fill:#bfb6fc
	classDef pending stroke-dasharray:5 5
`, got)
}

func TestPathStopsAtACycleOrAMissingParent(t *testing.T) {
	t.Parallel()
	a := tuple("a", "b", 0, checkpoint.SourceLoop, "x")
	b := tuple("b", "a", 1, checkpoint.SourceLoop, "y")
	assert.Len(t, Path([]*checkpoint.Tuple{a, b}, b), 2)
	orphan := tuple("c", "pruned", 5, checkpoint.SourceLoop, "z")
	assert.Len(t, Path([]*checkpoint.Tuple{orphan}, orphan), 1)
}
