package inspect

import (
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// Path returns the checkpoints from the first of the thread to head,
// oldest first, by following Parent through history (any order): the
// branch head is on, even when the thread was forked.
func Path(history []*checkpoint.Tuple, head *checkpoint.Tuple) []*checkpoint.Tuple {
	byID := make(map[string]*checkpoint.Tuple, len(history))
	for _, t := range history {
		byID[t.Config.CheckpointID] = t
	}
	var chain []*checkpoint.Tuple
	seen := map[string]bool{}
	for t := head; t != nil && !seen[t.Config.CheckpointID]; {
		seen[t.Config.CheckpointID] = true
		chain = append(chain, t)
		if t.Parent == nil || t.Parent.CheckpointID == "" {
			break
		}
		t = byID[t.Parent.CheckpointID]
	}
	slices.Reverse(chain)
	return chain
}

// Mermaid draws a path (oldest first, as Path returns it) as a Mermaid
// flowchart, exactly as graph.Compiled.MermaidPath does.
func Mermaid(path []*checkpoint.Tuple, next []string) string {
	mds := make([]checkpoint.Metadata, len(path))
	for i, t := range path {
		mds[i] = t.Metadata
	}
	return mermaidpath.Draw(mds, next)
}
