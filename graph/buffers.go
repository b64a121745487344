package graph

import "github.com/stategraph/stategraph/state"

// buffers are a run's reusable memory, pooled across runs of a graph.
type buffers[S any] struct {
	applier *state.Applier[S]
	scratch []bool
	marked  []bool
	taskBuf []task[S]
	tasks   []*task[S]
	nodes   []*node[S]
	sends   []state.Send[S]
	joins   [][]bool
}

func (c *Compiled[S]) getBuffers() *buffers[S] {
	if b, ok := c.pool.Get().(*buffers[S]); ok {
		return b
	}
	b := &buffers[S]{applier: c.schema.NewApplier(), scratch: make([]bool, c.schema.Len()), marked: make([]bool, len(c.nodes)), joins: make([][]bool, len(c.joins))}
	for i, j := range c.joins {
		b.joins[i] = make([]bool, len(j.srcs))
	}
	return b
}

// useBuffers gives the run pooled memory.
func (r *run[S]) useBuffers(b *buffers[S]) {
	r.bufs = b
	r.applier, r.scratch, r.taskBuf, r.tasks = b.applier, b.scratch, b.taskBuf, b.tasks[:0]
	r.next.nodes, r.next.sends, r.next.joins, r.next.marked = b.nodes[:0], b.sends[:0], b.joins, b.marked
	for _, j := range b.joins {
		clear(j)
	}
}

// putBuffers returns the run's memory to the pool, dropping what it
// referenced.
func (r *run[S]) putBuffers() {
	b := r.bufs
	if b == nil {
		return
	}
	r.bufs = nil
	clear(r.taskBuf[:cap(r.taskBuf)])
	clear(r.tasks[:cap(r.tasks)])
	clear(r.next.sends[:cap(r.next.sends)])
	clear(r.next.nodes[:cap(r.next.nodes)])
	clear(r.next.marked)
	b.taskBuf, b.tasks, b.nodes, b.sends = r.taskBuf[:0], r.tasks[:0], r.next.nodes[:0], r.next.sends[:0]
	r.c.pool.Put(b)
}
