package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/stategraph/stategraph/graph"
)

// The events, tools and lifecycle stream modes.
//
// events is LangChain's astream_events v2 as LangGraph's server streams
// it: on_chain_start and on_chain_end for the run's graph (its run_id the
// run's) and for each task (its run_id the task's id, its parents the run
// and the subgraph tasks it runs inside), on_chain_stream with each state
// of the graph, on_chat_model_start/stream/end for the tokens a node
// streams, on_tool_start and on_tool_end for the tool calls reported with
// StreamToolCall. tools is LangGraph's tools mode: on_tool_start,
// on_tool_end and on_tool_error of those calls. lifecycle sends
// "lifecycle|<namespace>" when a subgraph starts and when it completes,
// fails or stops at an interrupt.

// toolEvent is what StreamToolCall emits through graph.Emit; the
// converter turns it into tools and events events, never custom ones.
type toolEvent struct {
	phase  string // start, end, error
	name   string
	callID string
	input  any
	output string
	err    error
}

// StreamToolCall runs a tool call through run and reports it to the
// run's tools and events streams (on_tool_start, then on_tool_end or
// on_tool_error), when the node runs in a server run that streams them.
// It returns what run returns. Wrap a tool node's calls with it, e.g.
// toolnode.WithCallHook(func(ctx context.Context, c llms.ToolCall, run
// func(context.Context) (string, error)) (string, error) { return
// server.StreamToolCall(ctx, c.FunctionCall.Name, c.ID,
// c.FunctionCall.Arguments, run) }).
func StreamToolCall(ctx context.Context, name, callID string, input any, run func(context.Context) (string, error)) (string, error) {
	if s, ok := input.(string); ok && json.Valid([]byte(s)) {
		input = json.RawMessage(s) // a call's arguments, as JSON
	}
	graph.Emit(ctx, toolEvent{phase: "start", name: name, callID: callID, input: input})
	out, err := run(ctx)
	if err != nil {
		graph.Emit(ctx, toolEvent{phase: "error", name: name, callID: callID, input: input, err: err})
		return out, err
	}
	graph.Emit(ctx, toolEvent{phase: "end", name: name, callID: callID, input: input, output: out})
	return out, nil
}

// lcEvent is an astream_events v2 event.
type lcEvent struct {
	Event     string         `json:"event"`
	Name      string         `json:"name"`
	RunID     string         `json:"run_id"`
	ParentIDs []string       `json:"parent_ids"`
	Tags      []string       `json:"tags"`
	Metadata  map[string]any `json:"metadata"`
	Data      map[string]any `json:"data"`
}

// parents are the run ids an event of namespace ns nests in: the run's,
// then each subgraph task's.
func (c *converter) parents(ns string) []string {
	out := []string{c.run.rec.RunID}
	if ns == "" {
		return out
	}
	for _, part := range strings.Split(ns, "|") {
		if _, id, ok := strings.Cut(part, ":"); ok {
			out = append(out, id)
		}
	}
	return out
}

func (c *converter) runMeta() map[string]any {
	md := make(map[string]any, len(c.run.in.Metadata)+4)
	for k, v := range c.run.in.Metadata {
		md[k] = v
	}
	md["thread_id"], md["run_id"], md["graph_id"] = c.run.rec.ThreadID, c.run.rec.RunID, c.run.g.ID()
	if c.run.in.AssistantID != "" {
		md["assistant_id"] = c.run.in.AssistantID
	}
	return md
}

func (c *converter) tags() []string {
	if c.run.in.Tags == nil {
		return []string{}
	}
	return c.run.in.Tags
}

// beginEvents sends the graph's on_chain_start.
func (c *converter) beginEvents() {
	if !c.want["events"] {
		return
	}
	var input any = json.RawMessage("null")
	if !isNull(c.run.in.Input) {
		input = c.run.in.Input
	}
	c.emit("events", "", lcEvent{Event: "on_chain_start", Name: c.run.g.ID(), RunID: c.run.rec.RunID, ParentIDs: []string{},
		Tags: c.tags(), Metadata: c.runMeta(), Data: map[string]any{"input": input}})
}

// endEvents sends the graph's on_chain_end with its last state.
func (c *converter) endEvents() {
	if !c.want["events"] {
		return
	}
	var out any = json.RawMessage("null")
	if v := c.values[""]; !isNull(v) {
		out = v
	}
	c.emit("events", "", lcEvent{Event: "on_chain_end", Name: c.run.g.ID(), RunID: c.run.rec.RunID, ParentIDs: []string{},
		Tags: c.tags(), Metadata: c.runMeta(), Data: map[string]any{"output": out}})
}

// valuesEvent sends a state of the graph as on_chain_stream.
func (c *converter) valuesEvent(ev Event) {
	if !c.want["events"] || ev.Namespace != "" {
		return
	}
	c.emit("events", "", lcEvent{Event: "on_chain_stream", Name: c.run.g.ID(), RunID: c.run.rec.RunID, ParentIDs: []string{},
		Tags: c.tags(), Metadata: c.runMeta(), Data: map[string]any{"chunk": ev.Values}})
}

// taskEvent sends a task's on_chain_start or on_chain_end, and tells
// lifecycle when a subgraph task ends.
func (c *converter) taskEvent(ev Event, input json.RawMessage) {
	if c.want["lifecycle"] && ev.Task.Result {
		c.subgraphEnded(ev)
	}
	if !c.want["events"] {
		return
	}
	md := c.messageMeta(ev)
	tags := []string{fmt.Sprintf("graph:step:%d", ev.Step)}
	if ev.Task.Result {
		data := map[string]any{"output": ev.Update}
		if ev.Task.Err != nil {
			data = map[string]any{"error": ev.Task.Err.Error()}
		}
		c.emit("events", ev.Namespace, lcEvent{Event: "on_chain_end", Name: ev.Node, RunID: ev.TaskID, ParentIDs: c.parents(ev.Namespace),
			Tags: tags, Metadata: md, Data: data})
		delete(c.modelRuns, ev.TaskID)
		return
	}
	c.emit("events", ev.Namespace, lcEvent{Event: "on_chain_start", Name: ev.Node, RunID: ev.TaskID, ParentIDs: c.parents(ev.Namespace),
		Tags: tags, Metadata: md, Data: map[string]any{"input": input}})
}

// modelRun is a streamed message's chat model run in the events mode.
type modelRun struct{ ids map[string]bool }

// chatModelEvent sends a streamed token as on_chat_model_stream, after an
// on_chat_model_start for the message's first.
func (c *converter) chatModelEvent(ev Event, id, chunk string) {
	if !c.want["events"] {
		return
	}
	parents := append(c.parents(ev.Namespace), ev.TaskID)
	md := c.messageMeta(ev)
	runID := "run-" + id
	if c.modelRuns == nil {
		c.modelRuns = map[string]*modelRun{}
	}
	m := c.modelRuns[ev.TaskID]
	if m == nil {
		m = &modelRun{ids: map[string]bool{}}
		c.modelRuns[ev.TaskID] = m
	}
	if !m.ids[id] {
		m.ids[id] = true
		c.emit("events", ev.Namespace, lcEvent{Event: "on_chat_model_start", Name: "ChatModel", RunID: runID, ParentIDs: parents,
			Tags: []string{}, Metadata: md, Data: map[string]any{"input": map[string]any{}}})
	}
	c.emit("events", ev.Namespace, lcEvent{Event: "on_chat_model_stream", Name: "ChatModel", RunID: runID, ParentIDs: parents,
		Tags: []string{}, Metadata: md, Data: map[string]any{"chunk": chunkMessage(id, chunk, nil)}})
}

// chatModelEnd sends on_chat_model_end for a message whose task finished.
func (c *converter) chatModelEnd(ev Event, id, content string) {
	if !c.want["events"] {
		return
	}
	c.emit("events", ev.Namespace, lcEvent{Event: "on_chat_model_end", Name: "ChatModel", RunID: "run-" + id,
		ParentIDs: append(c.parents(ev.Namespace), ev.TaskID), Tags: []string{}, Metadata: c.messageMeta(ev),
		Data: map[string]any{"output": chunkMessage(id, content, nil)}})
}

// toolEvent sends a reported tool call to the tools and events modes.
func (c *converter) tool(ev Event, te toolEvent) {
	if c.want["tools"] {
		data := map[string]any{"event": "on_tool_" + te.phase, "name": te.name}
		if te.callID != "" {
			data["toolCallId"] = te.callID
		}
		switch te.phase {
		case "start":
			data["input"] = te.input
		case "end":
			data["output"] = te.output
		case "error":
			data["error"] = te.err.Error()
		}
		c.emit("tools", ev.Namespace, data)
	}
	if c.want["events"] && te.phase != "error" {
		runID := te.callID
		if runID == "" {
			runID = ev.TaskID + ":" + te.name
		}
		data := map[string]any{"input": te.input}
		if te.phase == "end" {
			data["output"] = te.output
		}
		md := c.messageMeta(ev)
		if te.callID != "" {
			md["tool_call_id"] = te.callID
		}
		c.emit("events", ev.Namespace, lcEvent{Event: "on_tool_" + te.phase, Name: te.name, RunID: runID,
			ParentIDs: append(c.parents(ev.Namespace), ev.TaskID), Tags: []string{}, Metadata: md, Data: data})
	}
}

// lifecycle sends "started" for a subgraph namespace's first event.
func (c *converter) lifecycle(ev Event) {
	ns := ev.Namespace
	if ns == "" || c.started[ns] {
		return
	}
	if c.started == nil {
		c.started = map[string]bool{}
	}
	// The enclosing namespaces start first.
	parts := strings.Split(ns, "|")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "|")
		if !c.started[sub] {
			c.started[sub] = true
			c.sendLifecycle(sub, "started", nil)
		}
	}
}

// subgraphEnded sends how a subgraph ended when the task that ran it
// finished: completed, interrupted or failed.
func (c *converter) subgraphEnded(ev Event) {
	for ns := range c.started {
		parts := strings.Split(ns, "|")
		last := parts[len(parts)-1]
		parent := strings.Join(parts[:len(parts)-1], "|")
		if parent != ev.Namespace || !strings.HasSuffix(last, ":"+ev.TaskID) {
			continue
		}
		delete(c.started, ns)
		if ev.Task.Err == nil {
			c.sendLifecycle(ns, "completed", nil)
			continue
		}
		// Stopped at an interrupt or failed: the run's end tells which.
		if c.stopped == nil {
			c.stopped = map[string]error{}
		}
		c.stopped[ns] = ev.Task.Err
	}
}

// flushLifecycle sends the end of the subgraphs whose tasks stopped
// without a result: interrupted when the run stopped at interrupts,
// failed otherwise.
func (c *converter) flushLifecycle() {
	nss := make([]string, 0, len(c.stopped))
	for ns := range c.stopped {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		if c.interrupted {
			c.sendLifecycle(ns, "interrupted", nil)
		} else {
			c.sendLifecycle(ns, "failed", map[string]any{"error": "Error", "message": c.stopped[ns].Error()})
		}
	}
	c.stopped = nil
}

func (c *converter) sendLifecycle(ns, what string, errv map[string]any) {
	data := map[string]any{"event": what, "namespace": strings.Split(ns, "|")}
	if errv != nil {
		data["error"] = errv
	}
	b, _ := json.Marshal(data)
	c.run.sink().append("lifecycle|"+ns, b)
}
