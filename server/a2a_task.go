package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/stategraph/stategraph/a2a"
)

// task is run rid of thread tid as an A2A task: pending is submitted,
// running working, success completed (its final values the artifact
// "result"), error failed, and an interrupted run input-required when its
// thread waits at an interrupt (the interrupt's value the status
// message), else canceled.
func (g *a2aAgent) task(ctx context.Context, tid, rid string) (*a2a.Task, error) {
	id := tid + ":" + rid
	code, out := g.call(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid, nil)
	if code != http.StatusOK {
		return nil, apiError(code, "task "+id, out)
	}
	var run struct {
		Status      string `json:"status"`
		AssistantID string `json:"assistant_id"`
	}
	_ = json.Unmarshal(out, &run)
	if run.AssistantID != g.a.ID {
		return nil, a2a.Errorf(a2a.CodeTaskNotFound, "a2a: task %q is not a task of agent %q", id, g.a.ID)
	}
	t := &a2a.Task{Kind: "task", ID: id, ContextID: tid, Status: a2a.TaskStatus{Timestamp: now()}}
	agentMsg := func(parts ...a2a.Part) *a2a.Message {
		return &a2a.Message{Kind: "message", MessageID: id + ":status", Role: "agent", Parts: parts, ContextID: tid, TaskID: id}
	}
	switch run.Status {
	case RunPending:
		t.Status.State = a2a.StateSubmitted
		return t, nil
	case RunRunning:
		t.Status.State = a2a.StateWorking
		return t, nil
	case RunError, RunTimeout:
		t.Status.State = a2a.StateFailed
		msg := fmt.Sprintf("run %q of thread %q %s", rid, tid, run.Status)
		if code, out := g.call(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid+"/join", nil); code == http.StatusOK {
			var res struct {
				Err *struct {
					Message string `json:"message"`
				} `json:"__error__"`
			}
			if json.Unmarshal(out, &res) == nil && res.Err != nil && res.Err.Message != "" {
				msg = res.Err.Message
			}
		}
		t.Status.Message = agentMsg(a2a.TextPart(msg))
		return t, nil
	}
	code, out = g.call(ctx, http.MethodGet, "/threads/"+tid+"/state", nil)
	if code != http.StatusOK {
		return nil, apiError(code, "task "+id, out)
	}
	var st struct {
		Values     json.RawMessage `json:"values"`
		Interrupts []struct {
			Value json.RawMessage `json:"value"`
		} `json:"interrupts"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return nil, a2a.Errorf(a2a.CodeInternal, "a2a: task %q: the state of thread %q: %v", id, tid, err)
	}
	switch {
	case run.Status == RunInterrupted && len(st.Interrupts) > 0:
		t.Status.State = a2a.StateInputRequired
		var parts []a2a.Part
		for _, in := range st.Interrupts {
			var s string
			if json.Unmarshal(in.Value, &s) == nil {
				parts = append(parts, a2a.TextPart(s))
			} else {
				parts = append(parts, a2a.DataPart(in.Value))
			}
		}
		t.Status.Message = agentMsg(parts...)
	case run.Status == RunInterrupted:
		t.Status.State = a2a.StateCanceled
	default:
		t.Status.State = a2a.StateCompleted
		parts := []a2a.Part{a2a.DataPart(st.Values)}
		if reply := lastMessage(st.Values); reply != "" {
			parts = append([]a2a.Part{a2a.TextPart(reply)}, parts...)
		}
		t.Artifacts = []a2a.Artifact{{ArtifactID: id + ":result", Name: "result", Parts: parts}}
	}
	return t, nil
}

// lastMessage is the text of the last message of values' "messages", if
// it has one with a text content.
func lastMessage(values json.RawMessage) string {
	var v struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(values, &v) != nil || len(v.Messages) == 0 {
		return ""
	}
	var s string
	_ = json.Unmarshal(v.Messages[len(v.Messages)-1].Content, &s)
	return s
}
