package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// schedule is what runs next: nodes triggered by edges (unique), Sends,
// and the progress of each join. A checkpoint stores it as a
// checkpoint.Schedule.
type schedule[S any] struct {
	// start: the input's writes wait as the Start task's (the schedule of
	// an input checkpoint, LangGraph's next == ("__start__",)).
	start  bool
	nodes  []*node[S]
	sends  []state.Send[S]
	joins  [][]bool // per join of the graph: which sources have finished
	marked []bool   // by node rank: in nodes already
	// held: the step built from this schedule left its deferred nodes
	// (WithDefer) waiting, because other work was pending (buildTasks).
	held bool
}

// newSchedule returns an empty schedule for the graph c.
func newSchedule[S any](c *Compiled[S]) schedule[S] {
	s := schedule[S]{joins: make([][]bool, len(c.joins)), marked: make([]bool, len(c.nodes))}
	for i, j := range c.joins {
		s.joins[i] = make([]bool, len(j.srcs))
	}
	return s
}

func (s *schedule[S]) empty() bool { return !s.start && len(s.nodes) == 0 && len(s.sends) == 0 }

// add schedules n once.
func (s *schedule[S]) add(n *node[S]) {
	if !s.marked[n.ord] {
		s.marked[n.ord] = true
		s.nodes = append(s.nodes, n)
	}
}

// reset empties the schedule of nodes and Sends (joins keep their
// progress).
func (s *schedule[S]) reset() {
	s.start, s.held = false, false
	for _, n := range s.nodes {
		s.marked[n.ord] = false
	}
	clear(s.nodes)
	s.nodes = s.nodes[:0]
	clear(s.sends)
	s.sends = s.sends[:0]
}

// holdsDeferred reports whether the schedule's deferred nodes must wait:
// something else is pending (a node that is not deferred, a Send, the
// input).
func (s *schedule[S]) holdsDeferred() bool {
	if s.start || len(s.sends) > 0 {
		return true
	}
	for _, n := range s.nodes {
		if !n.deferred {
			return true
		}
	}
	return false
}

// resetKeepDeferred empties the schedule as reset does, but keeps its
// deferred nodes: they wait for the steps to come (LangGraph's
// *AfterFinish channels keep their value until they are read).
func (s *schedule[S]) resetKeepDeferred() {
	s.start, s.held = false, false
	kept := s.nodes[:0]
	for _, n := range s.nodes {
		if n.deferred {
			kept = append(kept, n)
		} else {
			s.marked[n.ord] = false
		}
	}
	clear(s.nodes[len(kept):])
	s.nodes = kept
	clear(s.sends)
	s.sends = s.sends[:0]
}

// copyFrom makes s the same schedule as src, in s's own memory.
func (s *schedule[S]) copyFrom(src *schedule[S]) {
	s.reset()
	s.start = src.start
	for _, n := range src.nodes {
		s.add(n)
	}
	s.sends = append(s.sends, src.sends...)
	for i, j := range src.joins {
		copy(s.joins[i], j)
	}
}

// names returns the scheduled nodes' names, in rank (name) order.
func (s *schedule[S]) names() []string {
	out := make([]string, 0, len(s.nodes)+1)
	if s.start {
		out = append(out, Start)
	}
	for _, n := range s.nodes {
		out = append(out, n.name)
	}
	slices.Sort(out)
	return out
}

// encodeSched encodes the run's schedule, in the persist's reusable
// memory when it is nodes only (the common case: no allocation).
func (p *persist[S]) encodeSched() ([]byte, error) {
	r := p.r
	if len(r.next.sends) == 0 && !r.next.start && !anyJoin(r.next.joins) {
		b, err := checkpoint.AppendSchedule(p.schedBuf[:0], checkpoint.Schedule{Nodes: sortedNames(r.next.nodes, &p.names)})
		p.schedBuf = b
		return b, err
	}
	s := checkpoint.Schedule{Nodes: r.next.names()}
	for _, snd := range r.next.sends {
		ss, err := r.c.encodeSend(snd)
		if err != nil {
			return nil, err
		}
		s.Sends = append(s.Sends, ss)
	}
	for ji, seen := range r.next.joins {
		var done []string
		for k, ok := range seen {
			if ok {
				done = append(done, r.c.joins[ji].srcs[k])
			}
		}
		if len(done) > 0 {
			if s.Joins == nil {
				s.Joins = map[string][]string{}
			}
			j := r.c.joins[ji]
			s.Joins[checkpoint.JoinKey(j.srcs, j.dst)] = done
		}
	}
	return checkpoint.AppendSchedule(nil, s)
}

// sortedNames returns the nodes' names sorted, in *buf's memory.
func sortedNames[S any](nodes []*node[S], buf *[]string) []string {
	*buf = (*buf)[:0]
	for _, n := range nodes {
		*buf = append(*buf, n.name)
	}
	slices.Sort(*buf)
	return *buf
}

func anyJoin(joins [][]bool) bool {
	for _, j := range joins {
		if slices.Contains(j, true) {
			return true
		}
	}
	return false
}

// decodeSched decodes a stored schedule into next.
func (c *Compiled[S]) decodeSched(data []byte, next *schedule[S], memo *schedMemo) error {
	s, ok := memo.find(data)
	if !ok {
		var err error
		if s, err = checkpoint.ParseSchedule(data); err != nil {
			return err
		}
		memo.add(data, s)
	}
	next.reset()
	for _, n := range s.Nodes {
		if n == Start {
			next.start = true
			continue
		}
		nd := c.nodes[n]
		if nd == nil {
			return fmt.Errorf("%w: it schedules node %q, which this graph does not have", ErrGraphMismatch, n)
		}
		next.add(nd)
	}
	for _, ss := range s.Sends {
		snd, err := c.decodeSend(ss)
		if err != nil {
			return err
		}
		next.sends = append(next.sends, snd)
	}
	for ji, j := range c.joins {
		clear(next.joins[ji])
		for _, src := range s.Joins[checkpoint.JoinKey(j.srcs, j.dst)] {
			if k := slices.Index(j.srcs, src); k >= 0 {
				next.joins[ji][k] = true
			}
		}
	}
	return nil
}

// encodeSend encodes a Send as the schedule and a SendChannel write store
// it.
func (c *Compiled[S]) encodeSend(s state.Send[S]) (checkpoint.ScheduledSend, error) {
	if s.Item != nil {
		item, err := json.Marshal(s.Item)
		if err != nil {
			return checkpoint.ScheduledSend{}, fmt.Errorf("send to %q: its argument %T: %w", s.Node, s.Item, err)
		}
		return checkpoint.ScheduledSend{Node: s.Node, Item: item}, nil
	}
	arg, err := c.schema.EncodeState(&s.Arg, c.ser)
	if err != nil {
		return checkpoint.ScheduledSend{}, fmt.Errorf("send to %q: %w", s.Node, err)
	}
	full, _ := c.ser.Marshal(s.Arg) // best effort: unexported fields need the schema's copy
	return checkpoint.ScheduledSend{Node: s.Node, Arg: arg, Full: full}, nil
}

// decodeSendWrite decodes the value of a SendChannel write.
func (c *Compiled[S]) decodeSendWrite(data []byte) (state.Send[S], error) {
	var ss checkpoint.ScheduledSend
	if err := json.Unmarshal(data, &ss); err != nil {
		return state.Send[S]{}, err
	}
	return c.decodeSend(ss)
}

func (c *Compiled[S]) decodeSend(ss checkpoint.ScheduledSend) (state.Send[S], error) {
	if c.nodes[ss.Node] == nil {
		return state.Send[S]{}, fmt.Errorf("%w: it sends to node %q, which this graph does not have", ErrGraphMismatch, ss.Node)
	}
	if len(ss.Item) > 0 {
		return state.Send[S]{Node: ss.Node, Item: ss.Item}, nil // SendArg's, decoded by its node
	}
	var arg S
	if len(ss.Full) > 0 {
		if err := c.ser.Unmarshal(ss.Full, &arg); err != nil {
			return state.Send[S]{}, fmt.Errorf("send to %q: %w", ss.Node, err)
		}
	}
	sc := c.schema
	for name, data := range ss.Arg {
		i := sc.Index(name)
		if i < 0 {
			return state.Send[S]{}, fmt.Errorf("send to %q: no field %q in the schema", ss.Node, name)
		}
		if err := sc.Decode(&arg, i, data, nil, c.ser); err != nil {
			return state.Send[S]{}, fmt.Errorf("send to %q: %w", ss.Node, err)
		}
	}
	return state.Send[S]{Node: ss.Node, Arg: arg}, nil
}

// schedMemo remembers the last few schedules parsed, by their stored
// bytes: the checkpoints of a thread's history repeat a handful of
// schedules (a loop's), and History parses thousands of them. The bytes a
// saver returns are immutable (checkpoint.Saver), so the memo keeps them
// without a copy. A nil memo remembers nothing.
type schedMemo struct {
	data  [schedMemoSize][]byte
	sched [schedMemoSize]checkpoint.Schedule
	n     int // entries added; the next goes to n % schedMemoSize
}

// schedMemoSize is how many schedules a memo holds; schedMemoMax the
// longest schedule it keeps (one with Sends carries their inputs).
const (
	schedMemoSize = 4
	schedMemoMax  = 512
)

func (m *schedMemo) find(data []byte) (checkpoint.Schedule, bool) {
	if m == nil {
		return checkpoint.Schedule{}, false
	}
	for i := range min(m.n, schedMemoSize) {
		if bytes.Equal(m.data[i], data) {
			return m.sched[i], true
		}
	}
	return checkpoint.Schedule{}, false
}

func (m *schedMemo) add(data []byte, s checkpoint.Schedule) {
	if m == nil || len(data) > schedMemoMax {
		return
	}
	i := m.n % schedMemoSize
	m.data[i], m.sched[i] = data, s
	m.n++
}
