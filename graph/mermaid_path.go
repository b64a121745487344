package graph

import (
	"context"
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// MermaidPath draws the path a thread took, from its checkpoint history:
// one box per node run, in step order, from Start to the latest checkpoint
// (or the one pinned with WithCheckpoint), following parents, so a thread
// that was forked shows the branch it is on. It ends at End when the
// thread finished, and at the pending nodes, drawn dashed, when it did not.
// WithNamespace draws a subgraph's path (call it on the subgraph's compiled
// graph); WithSubgraphs changes nothing of the drawing.
func (c *Compiled[S]) MermaidPath(ctx context.Context, opts ...StateOption) (string, error) {
	o := readOptionsOf(opts)
	head, err := c.State(ctx, opts...)
	if err != nil {
		return "", err
	}
	byID := map[string]*Snapshot[S]{}
	for snap, err := range c.History(ctx, WithThread(o.thread), WithNamespace(o.ns)) {
		if err != nil {
			return "", err
		}
		byID[snap.Config.CheckpointID] = snap
	}
	var chain []*Snapshot[S] // oldest first
	for s := byID[head.Config.CheckpointID]; s != nil; {
		chain = append(chain, s)
		if s.Parent == nil {
			break
		}
		s = byID[s.Parent.CheckpointID]
	}
	slices.Reverse(chain)
	mds := make([]checkpoint.Metadata, len(chain))
	for i, s := range chain {
		mds[i] = s.Metadata
	}
	return mermaidpath.Draw(mds, head.Next), nil
}
