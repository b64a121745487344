package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/stategraph/stategraph/graph"
)

// converter turns a run's events into LangGraph's SSE events in the modes
// the run asked for, and keeps what the run's result needs.
type converter struct {
	s          *Server
	run        *liveRun
	want       map[string]bool
	subgraphs  bool
	values     map[string]json.RawMessage // last values by namespace
	messages   map[string]*message        // streamed messages by task id and message id
	order      map[string][]string        // keys of messages by task id, in order
	triggers   map[string][]string        // langgraph_triggers of running tasks other than an edge's
	completed  map[string]bool            // messages mode: the messages sent complete, by namespace and id
	streamed   map[string][]*message      // messages mode: streamed messages of finished tasks, by namespace, until the next state
	interrupts []graph.Interruption
	// interrupted: the run stopped at interrupts.
	interrupted bool
	modelRuns   map[string]*modelRun // events mode: chat model runs by task id
	started     map[string]bool      // lifecycle mode: subgraph namespaces started and not ended
	stopped     map[string]error     // lifecycle mode: subgraphs whose tasks stopped with an error, until the run ends
}

type message struct {
	id      string
	content string
}

func newConverter(s *Server, run *liveRun) *converter {
	c := &converter{s: s, run: run, want: map[string]bool{}, subgraphs: run.in.Subgraphs,
		values: map[string]json.RawMessage{}, messages: map[string]*message{}, triggers: map[string][]string{},
		completed: map[string]bool{}, streamed: map[string][]*message{}}
	for _, m := range run.modes {
		c.want[m] = true
	}
	return c
}

// emit appends an event to the run's log; subgraph events are named
// "mode|ns" and sent only with stream_subgraphs.
func (c *converter) emit(name, ns string, data any) {
	if ns != "" {
		if !c.subgraphs {
			return
		}
		name += "|" + ns
	}
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(errorJSON(err))
		name = "error"
	}
	c.run.sink().append(name, b)
}

func (c *converter) event(ctx context.Context, ev Event) {
	ns := ev.Namespace
	if c.want["lifecycle"] && ns != "" {
		c.lifecycle(ev)
	}
	switch ev.Mode {
	case graph.Values:
		c.values[ns] = ev.Values
		if c.want["values"] {
			c.emit("values", ns, ev.Values)
		}
		c.valuesEvent(ev)
		c.completeMessages(ns, ev.Values)
	case graph.Updates:
		if c.want["updates"] {
			c.emit("updates", ns, map[string]json.RawMessage{ev.Node: ev.Update})
		}
	case graph.Interrupts:
		if ns != "" {
			return
		}
		c.interrupted, c.interrupts = true, dynamicInterrupts(ev.Interrupts)
		if c.want["updates"] {
			c.emit("updates", ns, map[string]any{graph.InterruptNode: interruptsJSON(c.interrupts)})
		}
		if c.want["values"] {
			c.emit("values", ns, c.withInterrupts(c.values[ns]))
		}
	case graph.Custom:
		if te, ok := ev.Custom.(toolEvent); ok {
			c.tool(ev, te)
			return
		}
		if c.want["custom"] {
			c.emit("custom", ns, ev.Custom)
		}
	case graph.Messages:
		c.message(ev)
	case graph.Tasks:
		c.task(ev)
	case graph.Checkpoints:
		c.checkpoint(ctx, ev)
	}
}

// dynamicInterrupts leaves out the stops at static breakpoints
// (interrupt_before, interrupt_after), for which LangGraph's API reports
// no interrupt ("__interrupt__": []).
func dynamicInterrupts(ins []graph.Interruption) []graph.Interruption {
	out := make([]graph.Interruption, 0, len(ins))
	for _, in := range ins {
		if in.When != "before" && in.When != "after" {
			out = append(out, in)
		}
	}
	return out
}

// withInterrupts adds "__interrupt__" to a values object.
func (c *converter) withInterrupts(values json.RawMessage) json.RawMessage {
	m := map[string]json.RawMessage{}
	if !isNull(values) {
		_ = json.Unmarshal(values, &m)
	}
	in, _ := json.Marshal(interruptsJSON(c.interrupts))
	m[graph.InterruptNode] = in
	out, _ := json.Marshal(m)
	return out
}

// messageMeta is a message event's metadata as LangGraph's: the run's
// metadata, then the task's node, step, triggers, path and namespace, the
// thread and run, and the run's tags.
func (c *converter) messageMeta(ev Event) map[string]any {
	out := make(map[string]any, len(c.run.in.Metadata)+12)
	for k, v := range c.run.in.Metadata {
		out[k] = v
	}
	triggers := c.triggers[ev.TaskID]
	if triggers == nil {
		triggers = []string{"branch:to:" + ev.Node}
	}
	tags := c.run.in.Tags
	if tags == nil {
		tags = []string{}
	}
	for k, v := range map[string]any{
		"langgraph_node": ev.Node, "langgraph_step": ev.Step, "langgraph_task_id": ev.TaskID,
		"langgraph_triggers": triggers, "langgraph_path": []any{"__pregel_pull", ev.Node},
		"langgraph_checkpoint_ns": ev.Namespace, "checkpoint_ns": ev.Namespace,
		"thread_id": c.run.rec.ThreadID, "run_id": c.run.rec.RunID, "tags": tags,
	} {
		out[k] = v
	}
	return out
}

func aiMessage(id, content, kind string) map[string]any {
	return map[string]any{
		"type": kind, "id": id, "content": content, "tool_calls": []any{}, "tool_call_chunks": []any{},
		"invalid_tool_calls": []any{}, "additional_kwargs": map[string]any{}, "response_metadata": map[string]any{},
	}
}

// message sends an LLM chunk: as a [chunk, metadata] tuple for
// messages-tuple, and for messages as LangGraph's server does: the
// chunk's metadata first (messages/metadata, keyed by the message's id),
// then the message so far (messages/partial). Its messages/complete comes
// with the state that holds it (completeMessages).
func (c *converter) message(ev Event) {
	key := ev.TaskID + "\x00" + ev.MessageID
	m := c.messages[key]
	first := m == nil
	if first {
		id := ev.MessageID
		if id == "" {
			id = "run-" + c.run.rec.RunID + "-" + ev.TaskID
		}
		m = &message{id: id}
		c.messages[key] = m
		if c.order == nil {
			c.order = map[string][]string{}
		}
		c.order[ev.TaskID] = append(c.order[ev.TaskID], key)
	}
	chunk := string(ev.Chunk)
	m.content += chunk
	c.chatModelEvent(ev, m.id, chunk)
	if c.want["messages-tuple"] {
		c.emit("messages", ev.Namespace, []any{chunkMessage(m.id, chunk, nil), c.messageMeta(ev)})
	}
	if c.want["messages"] {
		if first {
			c.emit("messages/metadata", ev.Namespace, map[string]any{m.id: map[string]any{"metadata": c.messageMeta(ev)}})
		}
		c.emit("messages/partial", ev.Namespace, []any{aiMessage(m.id, m.content, "ai")})
	}
}

// pairs turns an update object into LangGraph's [[channel, value]] list.
func pairs(update json.RawMessage) [][2]any {
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(update, &m)
	out := [][2]any{}
	for k, v := range m {
		out = append(out, [2]any{k, v})
	}
	return out
}

func (c *converter) task(ev Event) {
	if ev.Task == nil {
		return
	}
	if !ev.Task.Result {
		if ev.Task.Send >= 0 {
			c.triggers[ev.TaskID] = []string{"__pregel_push"}
		}
	} else {
		streamed := map[string]bool{}
		for _, key := range c.order[ev.TaskID] {
			if m := c.messages[key]; m != nil {
				c.chatModelEnd(ev, m.id, m.content)
				streamed[m.id] = true
				if c.want["messages"] {
					c.streamed[ev.Namespace] = append(c.streamed[ev.Namespace], m)
				}
			}
			delete(c.messages, key)
		}
		delete(c.order, ev.TaskID)
		c.finishTuples(ev, streamed)
		delete(c.triggers, ev.TaskID)
	}
	var payload map[string]any
	kind := "task"
	// As LangGraph's: a task's input is what its node is given, the
	// state the step before left (or a Send's input), and its triggers
	// the channels that started it.
	input := ev.Input
	if input == nil && !ev.Task.Result {
		input = c.values[ev.Namespace]
	}
	if input == nil {
		input = json.RawMessage("null")
	}
	c.taskEvent(ev, input)
	if ev.Task.Result {
		kind = "task_result"
		var errv any
		if ev.Task.Err != nil {
			errv = ev.Task.Err.Error()
		}
		payload = map[string]any{"id": ev.TaskID, "name": ev.Node, "error": errv, "result": pairs(ev.Update), "interrupts": []any{}}
	} else {
		triggers := c.triggers[ev.TaskID]
		if triggers == nil {
			triggers = []string{"branch:to:" + ev.Node}
		}
		payload = map[string]any{"id": ev.TaskID, "name": ev.Node, "input": input, "triggers": triggers, "interrupts": []any{}}
	}
	if c.want["tasks"] {
		c.emit("tasks", ev.Namespace, payload)
	}
	if c.want["debug"] {
		c.emit("debug", ev.Namespace, map[string]any{"type": kind, "timestamp": timeJSON(time.Now()), "step": ev.Step, "payload": payload})
	}
}

func (c *converter) checkpoint(ctx context.Context, ev Event) {
	if (!c.want["checkpoints"] && !c.want["debug"]) || ev.Checkpoint == nil {
		return
	}
	cfg := *ev.Checkpoint
	payload := map[string]any{
		"config":        map[string]any{"configurable": checkpointJSON(&cfg)},
		"parent_config": nil,
		"values":        c.values[ev.Namespace],
		"next":          []string{},
		"tasks":         []any{},
	}
	if ev.Metadata != nil {
		payload["metadata"] = metadataJSON(*ev.Metadata)
	}
	if ev.Namespace == "" {
		if st, err := c.run.g.State(ctx, c.run.rec.ThreadID, cfg.CheckpointID); err == nil {
			js := stateJSON(st)
			payload["values"], payload["next"], payload["tasks"] = js["values"], js["next"], js["tasks"]
			if st.Parent != nil {
				payload["parent_config"] = map[string]any{"configurable": checkpointJSON(st.Parent)}
			}
		}
	}
	if c.want["checkpoints"] {
		c.emit("checkpoints", ev.Namespace, payload)
	}
	if c.want["debug"] {
		c.emit("debug", ev.Namespace, map[string]any{"type": "checkpoint", "timestamp": timeJSON(time.Now()), "step": ev.Step, "payload": payload})
	}
}

// result is what /runs/wait and join return: the last values (with
// "__interrupt__" when the run stopped at interrupts), or the error.
func (c *converter) result(runErr error) json.RawMessage {
	if runErr != nil {
		out, _ := json.Marshal(map[string]any{"__error__": errorJSON(runErr)})
		return out
	}
	v := c.values[""]
	if c.interrupted {
		return c.withInterrupts(v)
	}
	if isNull(v) {
		return json.RawMessage("{}")
	}
	return v
}
