package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/graph"
)

// SendInput is one Send of a run's command.goto (LangGraph's
// Send(node, arg)): the node to run in the next step with Input, a JSON
// object of the state's fields, as its state.
type SendInput struct {
	Node  string          `json:"node"`
	Input json.RawMessage `json:"input"`
}

// parseGoto reads a command's goto as LangGraph's clients send it: a node
// name, a Send ({"node", "input"}), or a list of either. Each node must
// be one of nodes, or End.
func parseGoto(raw json.RawMessage, nodes []string) (gotos []string, sends []SendInput, err error) {
	if isNull(raw) {
		return nil, nil, nil
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, &InputError{Field: "command.goto", Err: err}
		}
	} else {
		items = []json.RawMessage{raw}
	}
	valid := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if n != graph.Start {
			valid = append(valid, n)
		}
	}
	check := func(node string) error {
		if node == graph.End || contains(valid, node) {
			return nil
		}
		return &InputError{Field: "command.goto", Err: fmt.Errorf("no node %q (nodes: %s)", node, strings.Join(valid, ", "))}
	}
	for i, it := range items {
		var name string
		if json.Unmarshal(it, &name) == nil {
			if err := check(name); err != nil {
				return nil, nil, err
			}
			gotos = append(gotos, name)
			continue
		}
		var send struct {
			Node  *string         `json:"node"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(it, &send); err != nil || send.Node == nil {
			return nil, nil, &InputError{Field: fmt.Sprintf("command.goto[%d]", i), Err: errors.New(`want a node name or a Send {"node": …, "input": {…}}`)}
		}
		if *send.Node == graph.End {
			return nil, nil, &InputError{Field: fmt.Sprintf("command.goto[%d]", i), Err: errors.New("a Send cannot go to __end__")}
		}
		if err := check(*send.Node); err != nil {
			return nil, nil, err
		}
		sends = append(sends, SendInput{Node: *send.Node, Input: send.Input})
	}
	return gotos, sends, nil
}

// updateObject reads a command's update as LangGraph's clients send it:
// an object of field writes, or a list of [field, value] pairs, which it
// turns into the object (a field given twice is refused: one write a
// field).
func updateObject(raw json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return raw, nil
	}
	var pairs []json.RawMessage
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, &InputError{Field: "command.update", Err: err}
	}
	obj := make(map[string]json.RawMessage, len(pairs))
	for i, p := range pairs {
		var kv []json.RawMessage
		var k string
		if json.Unmarshal(p, &kv) != nil || len(kv) != 2 || json.Unmarshal(kv[0], &k) != nil {
			return nil, &InputError{Field: fmt.Sprintf("command.update[%d]", i), Err: errors.New("want a [field, value] pair")}
		}
		if _, dup := obj[k]; dup {
			return nil, &InputError{Field: "command.update." + k, Err: errors.New("written twice: give the field one value")}
		}
		obj[k] = kv[1]
	}
	return json.Marshal(obj)
}
