package graph

import "github.com/stategraph/stategraph/checkpoint"

// send hands an event to the stream; when the consumer stops, the run is
// cancelled.
func (r *run[S]) send(ev Event[S]) {
	if r.out == nil || r.ctx.Err() != nil {
		return
	}
	if ev.Namespace == "" {
		ev.Namespace = r.ns
	}
	if !r.out(ev) {
		r.cancel(errStopped)
	}
}

func (r *run[S]) wants(m Mode) bool { return r.out != nil && r.o.modes&m != 0 }

func (r *run[S]) emitValues() {
	if r.wants(Values) {
		r.send(Event[S]{Mode: Values, Step: r.step - 1, State: r.st})
	}
}

func (r *run[S]) emitTaskStart(t *task[S]) {
	if r.wants(Tasks) {
		r.send(Event[S]{Mode: Tasks, Step: r.step, Node: t.name, TaskID: t.id, Task: &TaskEvent{Send: sendIndex(t), Arg: taskArg(t)}})
	}
}

func (r *run[S]) emitTaskDone(t *task[S]) {
	if r.wants(Updates) && t.err == nil {
		r.send(Event[S]{Mode: Updates, Step: r.step, Node: t.name, TaskID: t.id, Update: t.update, Cached: t.cached || t.fromCache})
	}
	if r.wants(Tasks) {
		r.send(Event[S]{Mode: Tasks, Step: r.step, Node: t.name, TaskID: t.id, Update: t.update,
			Task: &TaskEvent{Send: sendIndex(t), Result: true, Err: t.err, Attempts: t.attempts, Cached: t.cached, FromCache: t.fromCache}})
	}
}

func (r *run[S]) emitCheckpoint(cfg checkpoint.Config, md checkpoint.Metadata) {
	if r.wants(Checkpoints) {
		// Copies, so that cfg and md stay on the stack when no one listens.
		c, m := cfg, md
		r.send(Event[S]{Mode: Checkpoints, Step: md.Step, Checkpoint: &c, Metadata: &m})
	}
}

// forward turns an event a task emitted into a stream event. It runs on
// the run's goroutine.
func (r *run[S]) forward(t *task[S], ev eventOut) {
	switch {
	case ev.sub != nil:
		switch sub := ev.sub.(type) {
		case Event[S]:
			r.send(sub)
		case foreignOut: // EmitForeign's
			r.send(foreignEvent[S](sub))
		case foreign: // a nested graph's, over another state type
			r.send(eventOf[S](sub))
		case func() bool:
			sub()
		}
	case ev.mode == Custom:
		r.send(Event[S]{Mode: Custom, Step: r.step, Node: t.name, TaskID: t.id, Custom: ev.custom})
	case ev.mode == Messages:
		r.send(Event[S]{Mode: Messages, Step: r.step, Node: t.name, TaskID: t.id, Chunk: ev.chunk, MessageID: ev.msgID})
	}
}

// emitFrom returns the emit func of the inline scope: the task runs on
// the run's goroutine, so its events go straight to the stream.
func (r *run[S]) emitFrom(sc *taskScope) func(eventOut) {
	return func(ev eventOut) {
		t := &task[S]{name: sc.node, id: sc.taskID}
		r.forward(t, ev)
	}
}

// taskArg is a Send task's input (TaskEvent.Arg), nil for another task.
func taskArg[S any](t *task[S]) any {
	switch {
	case !t.push:
		return nil
	case t.item != nil:
		return t.item
	}
	arg := t.arg
	return &arg
}

func sendIndex[S any](t *task[S]) int {
	if t.push {
		return t.index
	}
	return -1
}
