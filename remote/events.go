package remote

import (
	"encoding/json"
	"errors"

	"github.com/stategraph/stategraph/graph"
)

// remoteModes returns the stream_mode of a remote run whose events go to
// a caller's stream in modes: the Agent Server API's names for them
// (messages as messages-tuple, as LangGraph's RemoteGraph asks), and
// updates when the caller takes none, so that the stream has something
// to wait on.
func remoteModes(modes graph.Mode) []string {
	var out []string
	for _, m := range []struct {
		mode graph.Mode
		name string
	}{
		{graph.Values, "values"}, {graph.Updates, "updates"}, {graph.Custom, "custom"},
		{graph.Messages, "messages-tuple"}, {graph.Tasks, "tasks"},
	} {
		if modes&m.mode != 0 {
			out = append(out, m.name)
		}
	}
	if len(out) == 0 {
		out = []string{"updates"}
	}
	return out
}

// foreignEvent is the caller's event for a remote event of mode (the
// Agent Server API's name) in the remote namespace ns, with the fields a
// consumer of the mode reads filled from data as far as it holds them;
// false for a mode the caller's stream has no counterpart of.
func foreignEvent(mode, ns string, data json.RawMessage) (graph.ForeignEvent, bool) {
	ev := graph.ForeignEvent{Namespace: ns}
	switch mode {
	case "values":
		ev.Mode = graph.Values
	case "updates":
		ev.Mode = graph.Updates
		var upd map[string]json.RawMessage
		if json.Unmarshal(data, &upd) == nil && len(upd) == 1 {
			for node := range upd {
				ev.Node = node
			}
		}
	case "custom":
		ev.Mode, ev.Custom = graph.Custom, data
	case "messages":
		ev.Mode = graph.Messages
		var tuple []json.RawMessage
		if json.Unmarshal(data, &tuple) != nil || len(tuple) != 2 {
			return ev, true
		}
		var msg struct {
			ID      string          `json:"id"`
			Content json.RawMessage `json:"content"`
		}
		var meta struct {
			Node string `json:"langgraph_node"`
			Step int    `json:"langgraph_step"`
			Task string `json:"langgraph_task_id"`
		}
		if json.Unmarshal(tuple[0], &msg) == nil {
			ev.MessageID = msg.ID
			var text string
			if json.Unmarshal(msg.Content, &text) == nil {
				ev.Chunk = []byte(text)
			}
		}
		if json.Unmarshal(tuple[1], &meta) == nil {
			ev.Node, ev.Step, ev.TaskID = meta.Node, meta.Step, meta.Task
		}
	case "tasks":
		ev.Mode = graph.Tasks
		var task struct {
			ID     string          `json:"id"`
			Name   string          `json:"name"`
			Error  *string         `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(data, &task) != nil {
			return ev, true
		}
		ev.Node, ev.TaskID = task.Name, task.ID
		ev.Task = &graph.TaskEvent{Send: -1, Result: task.Result != nil || task.Error != nil}
		if task.Error != nil {
			ev.Task.Err = errors.New(*task.Error)
		}
	default:
		return ev, false
	}
	return ev, true
}
