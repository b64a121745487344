package server

import (
	"encoding/json"
	"errors"
	"fmt"
)

// runRequest is the body of the run endpoints (LangGraph's RunCreate).
type runRequest struct {
	AssistantID       string          `json:"assistant_id"`
	Input             json.RawMessage `json:"input"`
	Command           *command        `json:"command"`
	Config            *runConfig      `json:"config"`
	Context           json.RawMessage `json:"context"`
	Metadata          map[string]any  `json:"metadata"`
	StreamMode        json.RawMessage `json:"stream_mode"`
	StreamSubgraphs   bool            `json:"stream_subgraphs"`
	StreamResumable   bool            `json:"stream_resumable"`
	InterruptBefore   json.RawMessage `json:"interrupt_before"`
	InterruptAfter    json.RawMessage `json:"interrupt_after"`
	Checkpoint        *checkpointRef  `json:"checkpoint"`
	CheckpointID      string          `json:"checkpoint_id"`
	MultitaskStrategy string          `json:"multitask_strategy"`
	OnDisconnect      string          `json:"on_disconnect"`
	OnCompletion      string          `json:"on_completion"`
	IfNotExists       string          `json:"if_not_exists"`
	AfterSeconds      float64         `json:"after_seconds"`
	Webhook           string          `json:"webhook"`
	Durability        string          `json:"durability"`
	CheckpointDuring  *bool           `json:"checkpoint_during"`
}

// command is LangGraph's Command as a run's input.
type command struct {
	Resume json.RawMessage `json:"resume"`
	Update json.RawMessage `json:"update"`
	Goto   json.RawMessage `json:"goto"`
}

type runConfig struct {
	RecursionLimit int            `json:"recursion_limit"`
	Configurable   map[string]any `json:"configurable"`
	Tags           []string       `json:"tags"`
}

// Multitask strategies: what a run does when its thread is busy.
const (
	strategyReject    = "reject"
	strategyEnqueue   = "enqueue"
	strategyInterrupt = "interrupt"
	strategyRollback  = "rollback"
)

var streamModes = map[string]bool{
	"values": true, "updates": true, "messages": true, "messages-tuple": true,
	"custom": true, "tasks": true, "debug": true, "checkpoints": true,
	"events": true, "tools": true, "lifecycle": true,
}

// parseModes reads stream_mode: a string or a list, default values.
func parseModes(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return []string{"values"}, nil
	}
	var one string
	var list []string
	if json.Unmarshal(raw, &one) == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &InputError{Field: "stream_mode", Err: errors.New("want a string or a list of strings")}
	}
	for _, m := range list {
		if !streamModes[m] {
			return nil, &InputError{Field: "stream_mode", Err: fmt.Errorf("%q is not supported (supported: values, updates, messages, messages-tuple, custom, tasks, debug, checkpoints, events, tools, lifecycle)", m)}
		}
	}
	if len(list) == 0 {
		list = []string{"values"}
	}
	return list, nil
}

// parseNodes reads interrupt_before/after: "*" or a list of node names.
func parseNodes(field string, raw json.RawMessage, nodes []string) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var one string
	var list []string
	if json.Unmarshal(raw, &one) == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &InputError{Field: field, Err: errors.New(`want "*" or a list of node names`)}
	}
	for _, n := range list {
		if n != "*" && !contains(nodes, n) {
			return nil, &InputError{Field: field, Err: fmt.Errorf("no node %q", n)}
		}
	}
	return list, nil
}

func (r *runRequest) validate() error {
	switch r.MultitaskStrategy {
	case "":
		r.MultitaskStrategy = strategyReject
	case strategyReject, strategyEnqueue, strategyInterrupt, strategyRollback:
	default:
		return &InputError{Field: "multitask_strategy", Err: fmt.Errorf("%q is not reject, enqueue, interrupt or rollback", r.MultitaskStrategy)}
	}
	switch r.OnDisconnect {
	case "":
		r.OnDisconnect = "continue"
	case "continue", "cancel":
	default:
		return &InputError{Field: "on_disconnect", Err: fmt.Errorf("%q is not cancel or continue", r.OnDisconnect)}
	}
	switch r.OnCompletion {
	case "":
		r.OnCompletion = "delete"
	case "delete", "keep":
	default:
		return &InputError{Field: "on_completion", Err: fmt.Errorf("%q is not delete or keep", r.OnCompletion)}
	}
	switch r.IfNotExists {
	case "", "reject", "create":
	default:
		return &InputError{Field: "if_not_exists", Err: fmt.Errorf("%q is not reject or create", r.IfNotExists)}
	}
	switch r.Durability {
	case "":
		if r.CheckpointDuring != nil && !*r.CheckpointDuring {
			r.Durability = "exit" // LangGraph's older spelling of it
		}
	case "sync", "async", "exit":
	default:
		return &InputError{Field: "durability", Err: fmt.Errorf("%q is not sync, async or exit", r.Durability)}
	}
	if r.AfterSeconds > 0 {
		return &InputError{Field: "after_seconds", Err: errors.New("delayed runs are not supported by stategraph yet")}
	}
	if r.Command != nil && !isNull(r.Input) {
		return &InputError{Field: "input", Err: errors.New("give either input or command, not both")}
	}
	if r.CheckpointID == "" && r.Checkpoint != nil {
		r.CheckpointID = r.Checkpoint.ID
	}
	if r.CheckpointID == "" && r.Config != nil {
		if id, ok := r.Config.Configurable["checkpoint_id"].(string); ok {
			r.CheckpointID = id
		}
	}
	return nil
}
