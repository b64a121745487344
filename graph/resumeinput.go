package graph

import (
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// An input given with resume values (LangGraph's Command(resume=…,
// update=…)) is saved at once as pending writes of the checkpoint the run
// resumes, under a task of its own (resumeInputTask), as LangGraph saves a
// Command's update as writes of its null task. It is applied to the state
// before the resumed step runs, and stored with the step's checkpoint:
// when the step fails, the writes stay, and the next resume of that
// checkpoint applies them (with its own input after them), so an input is
// applied once, never lost.

// resumeInputTask names the task an input given with resume values is
// saved under. Node names cannot start with "__", so no node has it.
const resumeInputTask = "__input__"

// resumeInputID is the id of the resumeInputTask of the step that
// checkpoint cp of namespace ns holds.
func resumeInputID(cp, ns string, step int) string {
	return checkpoint.TaskID(cp, ns, step, resumeInputTask, -1)
}

// takeInput sets the update the resumed step starts with: the inputs
// saved with earlier resumes of the checkpoint, then input, which it saves
// after them. p.pending holds the checkpoint's writes.
func (p *persist[S]) takeInput(input state.Update[S]) error {
	id := resumeInputID(p.id, p.cfg.Namespace, p.r.step)
	saved := p.pending[id]
	delete(p.pending, id)
	var upd state.Update[S]
	if len(saved) > 0 {
		u, err := p.r.c.decodeTaskWrites(saved)
		if err != nil {
			return p.errorf("checkpoint %q: the input given with an earlier resume: %w: %w", p.id, checkpoint.ErrCorrupt, err)
		}
		upd = u
	}
	if !input.IsZero() {
		ws, err := p.successWrites(&task[S]{name: resumeInputTask, id: id, update: input})
		if err != nil {
			return err
		}
		next := 0
		for _, w := range saved {
			next = max(next, w.Index+1)
		}
		for i := range ws {
			ws[i].Index += next
		}
		if err := p.putWrites(id, ws); err != nil {
			return p.errorf("save the input given with the resume values at step %d: %w", p.r.step, err)
		}
		upd.Writes = append(upd.Writes, input.Writes...)
		upd.Goto = append(upd.Goto, input.Goto...)
		upd.Sends = append(upd.Sends, input.Sends...)
	}
	p.update = upd
	return nil
}

// applyResumeInput applies to d's state the input given with a resume of
// d's checkpoint whose step has not been stored, as the resumed step
// starts from it (State of the latest checkpoint).
func (c *Compiled[S]) applyResumeInput(d *decoded[S], pending map[string][]checkpoint.PendingWrite, applier *state.Applier[S]) error {
	ws := pending[resumeInputID(d.tup.Config.CheckpointID, d.cfg.Namespace, d.step())]
	if len(ws) == 0 {
		return nil
	}
	upd, err := c.decodeTaskWrites(ws)
	if err == nil {
		err = applier.Add("input", upd.Writes)
	}
	if err == nil {
		_, err = applier.Apply(&d.st, true)
	}
	if err != nil {
		return fmt.Errorf("graph: thread %q: checkpoint %q: the input given with a resume: %w", d.tup.Config.ThreadID, d.tup.Config.CheckpointID, err)
	}
	return nil
}
