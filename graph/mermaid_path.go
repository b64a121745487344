package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// MermaidPath draws the path a thread took, from its checkpoint history:
// one box per node run, in step order, from Start to the latest checkpoint
// (or the one pinned with WithCheckpoint), following parents, so a thread
// that was forked shows the branch it is on. It ends at End when the
// thread finished, and at the pending nodes, drawn dashed, when it did not.
func (c *Compiled[S]) MermaidPath(ctx context.Context, opts ...RunOption) (string, error) {
	o := c.options(opts)
	head, err := c.State(ctx, opts...)
	if err != nil {
		return "", err
	}
	byID := map[string]*Snapshot[S]{}
	for snap, err := range c.History(ctx, WithThread(o.thread)) {
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

	var b strings.Builder
	b.WriteString("graph TD;\n")
	fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::first\n", Start, Start)
	prev := []string{Start}
	var edges []string
	for _, s := range chain {
		if s.Metadata.Source != checkpoint.SourceLoop && s.Metadata.Source != checkpoint.SourceUpdate || len(s.Metadata.Nodes) == 0 {
			continue
		}
		var cur []string
		for _, n := range s.Metadata.Nodes {
			id := fmt.Sprintf("s%d_%s", s.Metadata.Step, mermaidID("", n))
			if slices.Contains(cur, id) {
				continue
			}
			label := fmt.Sprintf("%s · step %d", n, s.Metadata.Step)
			if s.Metadata.Source == checkpoint.SourceUpdate {
				label += " (update)"
			}
			fmt.Fprintf(&b, "\t%s[\"%s\"]\n", id, label)
			cur = append(cur, id)
		}
		for _, p := range prev {
			for _, q := range cur {
				edges = append(edges, fmt.Sprintf("\t%s --> %s;", p, q))
			}
		}
		prev = cur
	}
	if len(head.Next) == 0 {
		fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::last\n", End, End)
		for _, p := range prev {
			edges = append(edges, fmt.Sprintf("\t%s --> %s;", p, End))
		}
	} else {
		step := head.Metadata.Step + 1
		var pending []string
		for _, n := range head.Next {
			id := fmt.Sprintf("s%d_%s", step, mermaidID("", n))
			if !slices.Contains(pending, id) {
				fmt.Fprintf(&b, "\t%s[\"%s · step %d (pending)\"]:::pending\n", id, n, step)
				pending = append(pending, id)
			}
		}
		for _, p := range prev {
			for _, q := range pending {
				edges = append(edges, fmt.Sprintf("\t%s -.-> %s;", p, q))
			}
		}
	}
	for _, e := range edges {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	b.WriteString("\tclassDef first fill-opacity:0\n")
	b.WriteString("\tclassDef last fill:#bfb6fc\n")
	b.WriteString("\tclassDef pending stroke-dasharray:5 5\n")
	return b.String(), nil
}
