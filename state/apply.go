package state

import (
	"fmt"
	"strings"
)

// Applier applies the writes of one step to a state. It is reused step
// after step to avoid allocating; it is not safe for concurrent use.
type Applier[S any] struct {
	sc      *Schema[S]
	writes  [][]*Write[S]
	writers [][]string
	touched []int
	// rewrites are the fields of the last Apply whose AppendReduce
	// reducer did more than append.
	rewrites []int
}

// NewApplier returns an Applier for the schema.
func (sc *Schema[S]) NewApplier() *Applier[S] {
	return &Applier[S]{
		sc:      sc,
		writes:  make([][]*Write[S], len(sc.fields)),
		writers: make([][]string, len(sc.fields)),
	}
}

// Add queues the writes of one writer (a node or task name, used in
// errors). Writes are applied in the order they were added.
func (a *Applier[S]) Add(writer string, ws []Write[S]) error {
	for j := range ws {
		w := &ws[j]
		i, ok := a.sc.index[w.key]
		if !ok {
			if w.key == nil {
				return fmt.Errorf("%w: node %q returned a zero Write (make writes with a field's Set or Overwrite)", ErrInvalidUpdate, writer)
			}
			return fmt.Errorf("%w: node %q wrote field %q, which is not in the graph's schema", ErrInvalidUpdate, writer, w.key.name)
		}
		if len(a.writes[i]) == 0 {
			a.touched = append(a.touched, i)
		}
		a.writes[i] = append(a.writes[i], w)
		a.writers[i] = append(a.writers[i], writer)
	}
	return nil
}

// Apply applies the queued writes to s through the reducers, clears the
// queue, and returns the indices of the fields written, in schema order
// (valid until the next call). With private set, reducers never grow
// memory that s shares with another state (appends copy): use it when s
// is a scratch copy.
func (a *Applier[S]) Apply(s *S, private bool) ([]int, error) {
	sortInts(a.touched)
	a.rewrites = a.rewrites[:0]
	var err error
	for _, i := range a.touched {
		if err == nil {
			var rewrote bool
			rewrote, err = a.applyField(s, i, private)
			if rewrote {
				a.rewrites = append(a.rewrites, i)
			}
		}
		clear(a.writes[i])
		a.writes[i] = a.writes[i][:0]
		a.writers[i] = a.writers[i][:0]
	}
	t := a.touched
	a.touched = a.touched[:0]
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Rewrites returns the indices of the fields declared with AppendReduce
// whose reducer, in the last Apply, replaced or removed elements instead
// of only appending (valid until the next call): their new value must be
// stored whole.
func (a *Applier[S]) Rewrites() []int { return a.rewrites }

func (a *Applier[S]) applyField(s *S, i int, private bool) (bool, error) {
	f := a.sc.fields[i]
	ws := a.writes[i]
	if f.kind == KindValue && len(ws) > 1 {
		return false, fmt.Errorf("%w: field %q received %d writes in one step, from %s; a last-value field takes one write per step (declare it with a reducer such as state.Append or state.Reduce to combine writes)",
			ErrInvalidUpdate, f.name, len(ws), quoteList(a.writers[i]))
	}
	overwrites := 0
	for _, w := range ws {
		if w.overwrite {
			overwrites++
		}
	}
	if overwrites > 1 {
		return false, fmt.Errorf("%w: field %q received %d overwrites in one step, from %s; at most one is allowed",
			ErrInvalidUpdate, f.name, overwrites, quoteList(a.writers[i]))
	}
	return f.ops.apply(s, ws, private)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 2 {
		return q[0] + " and " + q[1]
	}
	return strings.Join(q, ", ")
}

// sortInts is an allocation-free insertion sort for the few touched
// fields of a step.
func sortInts(x []int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
