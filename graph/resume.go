package graph

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// replayResumes matches the run's resume values with the interrupts
// pending at the pinned checkpoint tup of a replay. The replay's tasks get
// new ids (the fork's), so restoreTasks finds the answers by the ids the
// tasks had at tup (replayedFrom). Only the answers and the values given
// before them are kept: the tasks run again, as on any replay.
func (p *persist[S]) replayResumes(tup *checkpoint.Tuple) error {
	o := p.r.o
	if len(o.resume) == 0 && o.resumeByID == nil {
		return nil
	}
	p.pending = groupPending(tup.PendingWrites)
	if err := p.matchResumes(); err != nil {
		return err
	}
	for owner, byID := range p.resumeIDs {
		for id := range byID {
			if !raisedBy(p.pending[owner], id) {
				return p.errorf("checkpoint %q: interrupt %q was raised in a subgraph: a replay cannot answer it (resume the thread's latest checkpoint instead)", tup.Config.CheckpointID, id)
			}
		}
	}
	for id, ws := range p.pending {
		p.pending[id] = slices.DeleteFunc(ws, func(w checkpoint.PendingWrite) bool { return w.Channel != checkpoint.ResumeChannel })
	}
	p.replayedFrom = tup.Config.CheckpointID
	return nil
}

// raisedBy reports whether one of a task's interrupt writes holds the
// interrupt id raised by the task itself, not by a subgraph it ran.
func raisedBy(ws []checkpoint.PendingWrite, id string) bool {
	for _, w := range ws {
		if w.Channel != checkpoint.InterruptChannel {
			continue
		}
		var ints []Interruption
		if json.Unmarshal(w.Value, &ints) != nil {
			continue
		}
		for _, in := range ints {
			if in.ID == id && in.TaskID == w.TaskID {
				return true
			}
		}
	}
	return false
}

// matchResumes assigns the call's resume values to the pending
// interrupts they answer.
func (p *persist[S]) matchResumes() error {
	o := p.r.o
	if len(o.resume) == 0 && o.resumeByID == nil {
		return nil
	}
	// Each pending interrupt with the task that owns its write: the task
	// that runs again. For a subgraph that is the parent's task, while the
	// interrupt names the subgraph's own task.
	type owned struct {
		Interruption
		owner string
	}
	var pending []owned
	for _, ws := range p.pending {
		for _, w := range ws {
			if w.Channel == checkpoint.InterruptChannel {
				var ints []Interruption
				if err := json.Unmarshal(w.Value, &ints); err != nil {
					return p.errorf("checkpoint %q: interrupt of task %q: %w: %w", p.id, w.TaskID, checkpoint.ErrCorrupt, err)
				}
				for _, in := range ints {
					pending = append(pending, owned{in, w.TaskID})
				}
			}
		}
	}
	slices.SortFunc(pending, func(a, b owned) int { return strings.Compare(a.ID, b.ID) })
	check := func(in owned, v any) error {
		if field, err := checkAnswer(in.Schema, v, p.r.c.strictAnswers); err != nil {
			at := ""
			if field != "" {
				at = fmt.Sprintf(" field %q:", field)
			}
			return p.errorf("%w: answer to interrupt %q of node %q (step %d):%s %w", ErrInvalidAnswer, in.ID, in.Node, in.Step, at, err)
		}
		return nil
	}
	p.resumes = map[string][]any{}
	p.resumeIDs = map[string]map[string]any{}
	answer := func(in owned, v any) {
		p.resumes[in.owner] = append(p.resumes[in.owner], v)
		if p.resumeIDs[in.owner] == nil {
			p.resumeIDs[in.owner] = map[string]any{}
		}
		p.resumeIDs[in.owner][in.ID] = v
	}
	if o.resumeByID != nil {
		for _, id := range sortedKeys(o.resumeByID) {
			i := slices.IndexFunc(pending, func(in owned) bool { return in.ID == id })
			if i < 0 && o.resumeSubset {
				continue
			}
			if i < 0 {
				return p.errorf("%w: no pending interrupt has id %q", ErrNothingToResume, id)
			}
			if err := check(pending[i], o.resumeByID[id]); err != nil {
				return err
			}
			answer(pending[i], o.resumeByID[id])
		}
		return nil
	}
	switch len(pending) {
	case 0:
		return p.errorf("%w: the thread has no pending interrupt", ErrNothingToResume)
	case 1:
		if err := check(pending[0], o.resume[0]); err != nil {
			return err // the first answers it; the others answer the node's later Interrupt calls
		}
		for _, v := range o.resume {
			answer(pending[0], v)
		}
		return nil
	}
	ids := make([]string, len(pending))
	for i, in := range pending {
		ids[i] = fmt.Sprintf("%s (node %q)", in.ID, in.Node)
	}
	return p.errorf("%w: %d interrupts are pending, so one resume value is ambiguous: each answer needs its interrupt id; answer them with graph.ResumeByID using the ids %s", ErrAmbiguousResume, len(pending), strings.Join(ids, ", "))
}
